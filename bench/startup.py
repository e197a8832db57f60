"""Start-up: `drill list` against the bare import of typer, prompt_toolkit and yaml.

    python bench/startup.py [--runs 9] [--command list]

Runs each in a fresh interpreter, alternating, `--runs` times (after one
warm-up run of each, which also fills the catalogue cache in a private
DRILL_HOME holding a progress database) and prints the medians and their ratio. The goal is a ratio of at
most 2.0. On a busy machine the figures move; rerun before concluding.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--command", default="list", help="the drill command to time (split on spaces)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="drill-bench-") as home:
        env = dict(os.environ, PYTHONPATH=str(ROOT), DRILL_HOME=home)
        bare = [sys.executable, "-c", "import typer, prompt_toolkit, yaml"]
        drill = [sys.executable, "-m", "trainer", *args.command.split()]
        # a home with a progress database, as after the first day: `list` reads it
        subprocess.run([sys.executable, "-m", "trainer", "settings", "daily_new_limit", "3"], env=env,
                       stdout=subprocess.DEVNULL, check=True)
        timed(bare, env)
        timed(drill, env)  # fills the catalogue cache
        bare_times, drill_times = [], []
        for _ in range(max(1, args.runs)):
            bare_times.append(timed(bare, env))
            drill_times.append(timed(drill, env))
    b, d = statistics.median(bare_times), statistics.median(drill_times)
    print(f"bare import of typer, prompt_toolkit, yaml: {b * 1000:7.1f} ms (median of {len(bare_times)})")
    print(f"drill {args.command:<36} {d * 1000:7.1f} ms (median of {len(drill_times)})")
    print(f"ratio: {d / b:.2f} (goal: at most 2.00)")


if __name__ == "__main__":
    main()
