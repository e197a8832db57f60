"""Solutions written the way people write them, not the way the reference does.

tests/solutions/<drill-id>/ok_*.py must pass (other routes: einsum, loops,
numpy inside, any mask dtype); bad_*.py must fail, and when the file's first
line is `# trap: <id>` the report must name that trap; `# trap: none` (a slip,
or two mistakes at once) means no trap may be named.
"""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).parent / "solutions"
FILES = sorted(ROOT.glob("*/*.py"))


def _expected_trap(path: Path) -> str | None:
    first = path.read_text(encoding="utf-8").splitlines()[:1]
    if first and first[0].startswith("# trap:"):
        return first[0].split(":", 1)[1].split()[0]
    return None


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_solution_file(grader, path):
    drill_id = path.parent.name
    report = grader.grade(drill_id, path.read_text(encoding="utf-8"), str(path), seed=7)
    if path.name.startswith("ok_"):
        bad = [(c.name, c.function, c.verdict, c.message) for c in report.cases if c.verdict != "pass"]
        assert report.verdict == "pass", bad
    else:
        assert path.name.startswith("bad_"), "name solution files ok_*.py or bad_*.py"
        assert report.verdict != "pass"
        trap = _expected_trap(path)
        if trap == "none":
            assert report.trap is None, f"named {report.trap.id} for a failure no trap explains"
        elif trap:
            assert report.trap is not None and report.trap.id == trap, report.first_failure and report.first_failure.message
