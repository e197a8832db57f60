"""Solutions written the way people write them, not the way the reference does.

tests/solutions/<drill-id>/ok_*.py must pass (other routes: einsum, loops,
numpy inside, any mask dtype); bad_*.py must fail. When a bad file's first line
is `# trap: <id>` the report must name that trap; when it is `# trap: none`
(a realistic slip that is none of the drill's traps, bad_slip_*.py) the report
must name no trap at all: a trap named for it would teach a false lesson.
bad_device_*.py pass every real case and fail the device case (fake CUDA
inputs); bad_memory_*.py fail the memory-at-scale check with both peaks in the
message.
"""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).parent / "solutions"
FILES = sorted(ROOT.glob("*/*.py"))
DRILLS = Path(__file__).parent.parent / "drills"


def _expected_trap(path: Path) -> str | None:
    """The trap id after `# trap:` on the first line, "none" for a slip, None when unstated."""
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
        assert not path.name.startswith("bad_slip_") or trap == "none", "a bad_slip_*.py file starts with `# trap: none`"
        if trap == "none":
            assert report.trap is None, f"no trap explains this slip, but the report names {report.trap.id!r}"
        elif trap:
            assert report.trap is not None and report.trap.id == trap, report.first_failure and report.first_failure.message
        if path.name.startswith("bad_device_"):  # correct on a CPU, mixes CPU tensors with GPU inputs (issue 14)
            device = [c for c in report.cases if c.name == "device" and c.verdict == "error"]
            assert device, [(c.name, c.verdict, c.message) for c in report.cases if c.verdict != "pass"]
            assert "device" in device[0].message and "device=x.device" in device[0].message
            assert all(c.verdict == "pass" for c in report.cases if c.name not in ("device", "scale")), report.first_failure
        if path.name.startswith("bad_memory_"):  # right values, too much memory at the scale sizes
            res = next(c for c in report.cases if c.name == "scale")
            assert res.verdict == "memory" and "the reference peaks at" in res.message, res.message


def test_every_drill_has_a_slip():
    """Issue 10: every drill has at least one realistic wrong solution that is none of its traps."""
    drills = {p.stem for p in DRILLS.glob("*/*.yaml")}
    slips = {p.parent.name for p in FILES if _expected_trap(p) == "none"}
    assert drills, "no drill specs found"
    assert sorted(drills - slips) == []


def test_trap_headers_name_real_traps(catalogue):
    """`# trap: <id>` names a trap of the file's own drill (a typo would make the test vacuous)."""
    wrong = []
    for path in FILES:
        trap = _expected_trap(path)
        if trap and trap != "none":
            ids = {t.id for t in catalogue.get(path.parent.name).traps}
            if trap not in ids:
                wrong.append(f"{path.parent.name}/{path.name}: {trap}")
    assert wrong == []
