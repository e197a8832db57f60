"""Family "DRILL_PATH references in a child": a reference outside the built-in drills is
imported first in a child process the grader kills at the deadline, so one that blocks
SIGALRM or cancels the interval timer at import cannot make `drill check` wait."""
from __future__ import annotations

from tests.paths import TESTS

import shutil
import time
from pathlib import Path

import pytest

TOY = TESTS / "fixtures" / "drills"
BLOCKER = """import signal
import time

signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
signal.setitimer(signal.ITIMER_REAL, 0)
signal.signal(signal.SIGALRM, signal.SIG_IGN)
time.sleep(20)  # bounded, so the fixture is harmless even where nothing stops it
"""


@pytest.mark.slow  # forks and waits out a deadline
def test_a_reference_that_blocks_the_alarm_is_stopped_at_the_deadline(tmp_path: Path, monkeypatch):
    from grader.cases import prepare
    from grader.catalogue import load_catalogue

    shutil.copy(TOY / "sandbox-toy.yaml", tmp_path / "sandbox-toy.yaml")
    (tmp_path / "sandbox-toy.py").write_text(BLOCKER + (TOY / "sandbox-toy.py").read_text())
    # a file that waits uses no CPU time: the wall-clock cap beside the CPU deadline stops it
    monkeypatch.setattr(prepare, "REFERENCE_IMPORT_SECONDS", 1.0)
    monkeypatch.setattr(prepare, "WALL_FACTOR", 3.0)
    spec = load_catalogue([tmp_path]).get("sandbox-toy")
    t0 = time.monotonic()
    with pytest.raises(prepare.CaseError, match="did not finish importing within 3 s"):
        prepare.load_reference(spec)
    assert time.monotonic() - t0 < 10  # the 20 s sleep was not waited out


def test_a_built_in_reference_is_not_imported_twice():
    from grader.cases import trial
    from tests.paths import REPO

    assert trial.builtin(str(REPO / "drills" / "01-broadcasting" / "pairwise-sqdist.py"))
    assert not trial.builtin(str(TOY / "sandbox-toy.py"))
