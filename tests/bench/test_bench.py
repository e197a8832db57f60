"""Every benchmark in bench/ runs to the end on its smallest setting, so a change that breaks one fails CI.

The figures themselves are not judged here (timing belongs in the scripts, never in tests): a
script passes when it exits 0 and prints something.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.paths import REPO

BENCH = REPO / "bench"
# each script with the arguments of its smallest setting
SMALLEST = {
    "bans.py": ["--runs", "1"],
    "frame_room.py": ["--depths", "12", "--step", "6", "--runs", "1"],
    "latency.py": ["--runs", "1", "--gap", "0.05", "--no-cold"],
    "memorised_month.py": ["--days", "3", "--drills", "1"],
    "optimize_sim.py": ["--epochs", "1"],
    "real_probes.py": ["pairwise-sqdist"],
    "smallest.py": ["--runs", "1", "--gap", "0.05", "--samples", "gqa:bad_repeat.py"],
    "stages.py": ["--runs", "1"],
    "startup.py": ["--runs", "1"],
    "trap_names.py": ["--limit", "1"],
    "validate_time.py": ["--runs", "1", "--jobs", "1", "--drills", "head-split"],
}

pytestmark = pytest.mark.slow


def test_every_bench_script_has_a_smallest_setting():
    assert sorted(p.name for p in BENCH.glob("*.py")) == sorted(SMALLEST)


@pytest.mark.parametrize("script", sorted(SMALLEST))
def test_bench_script_runs(script, tmp_path):
    env = {**os.environ, "DRILL_HOME": str(tmp_path / "home"), "OMP_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, str(BENCH / script), *SMALLEST[script]], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    assert proc.stdout.strip(), proc.stderr[-2000:]
