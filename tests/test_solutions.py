"""Solutions written the way people write them, not the way the reference does.

tests/solutions/<drill-id>/ok_*.py must pass (other routes: einsum, loops,
numpy inside, any mask dtype); bad_*.py must fail, and when the file's first
line is `# trap: <id>` the report must name that trap. bad_device_*.py pass
every real case and fail the device case (fake CUDA inputs); bad_memory_*.py
fail the memory-at-scale check with both peaks in the message.
"""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).parent / "solutions"
FILES = sorted(ROOT.glob("*/*.py"))


def _expected_trap(path: Path) -> str | None:
    first = path.read_text(encoding="utf-8").splitlines()[:1]
    if first and first[0].startswith("# trap:"):
        return first[0].split(":", 1)[1].strip()
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
        if trap:
            assert report.trap is not None and report.trap.id == trap, report.first_failure and report.first_failure.message
        if path.name.startswith("bad_device_"):  # correct on a CPU, mixes CPU tensors with GPU inputs (issue 14)
            device = [c for c in report.cases if c.name == "device" and c.verdict == "error"]
            assert device, [(c.name, c.verdict, c.message) for c in report.cases if c.verdict != "pass"]
            assert "device" in device[0].message and "device=x.device" in device[0].message
            assert all(c.verdict == "pass" for c in report.cases if c.name not in ("device", "scale")), report.first_failure
        if path.name.startswith("bad_memory_"):  # right values, too much memory at the scale sizes
            res = next(c for c in report.cases if c.name == "scale")
            assert res.verdict == "memory" and "the reference peaks at" in res.message, res.message
