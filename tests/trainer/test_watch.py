"""`drill watch`: grade again on every save; a compact verdict each time."""
from __future__ import annotations

from tests.paths import REPO


from trainer.repl.grading import InProcessGrading
from trainer.text.verdict import plain
from trainer.practice.watch import watch

SOLUTIONS = REPO / "drills" / "03-ragged" / "solutions" / "masked-mean"


def test_grades_on_start_and_on_every_save(tmp_path, grader):
    target = tmp_path / "sol.py"
    target.write_text((SOLUTIONS / "bad_mean.py").read_text())
    grading = InProcessGrading(grader)
    shown: list[str] = []
    polls = []

    def sleep(_seconds: float) -> None:
        polls.append(1)
        if len(polls) == 2:  # the person saves a fixed version between two polls
            target.write_text((SOLUTIONS / "ok_where_loop.py").read_text() + "\n# saved\n")

    graded = watch(target, lambda src: grading.grade("masked-mean", src, str(target), 3),
                   lambda frags: shown.append(plain(frags)), sleep=sleep, now=lambda: "12:00:00", rounds=4)
    assert graded == 2
    assert shown[0].startswith("[12:00:00] sol.py  WRONG") and "cases" in shown[0]
    assert "trap:" in shown[0] or "values differ" in shown[0] or "fp32" in shown[0]
    assert shown[1].startswith("[12:00:00] sol.py  PASS  9/9 cases")
    headline, *rest = shown[1].splitlines()  # compact: the headline, then at most the memory sentence
    assert "PASS" in headline and (rest == [] or rest[0].startswith("  memory at scale"))
    assert all(line.startswith("    ") for line in rest[1:]), rest


def test_missing_file_waits_for_it(tmp_path):
    shown: list[str] = []
    graded = watch(tmp_path / "nope.py", lambda src: None, lambda frags: shown.append(plain(frags)),
                   sleep=lambda s: None, now=lambda: "t", rounds=3)
    assert graded == 0 and len(shown) == 1 and "waiting for it to appear" in shown[0]
