"""Solutions written the way people write them, not the way the reference does.

Each drill keeps its sample solutions beside it, in
drills/<folder>/solutions/<drill-id>/ (drills/README.md: ok_*.py pass, bad_*.py
fail, `# trap: <id>` / `# trap: none`, bad_slip_, bad_device_, bad_memory_).
Each drill's files are one test, checked as `drill validate` checks them
(grader.authoring.samples.check_samples: one reused sandbox child grades file after
file, grader.sandbox.reuse), so the rules are written once; a problem names its file
and line. What validate cannot see is checked here: every drill has a slip, and no
solutions folder is left without its drill.
"""
from __future__ import annotations

from tests.paths import REPO, TESTS

import os
import subprocess
import sys
from pathlib import Path

import pytest

from grader.authoring import samples
from tests.builtin import builtin_catalogue
from grader.spec.userfile import SOLUTION_LIMIT, read_text

CATALOGUE = builtin_catalogue()
FILES = [(spec, path) for spec in CATALOGUE.specs.values() for path in samples.files(spec)]
SEED = 7
TOY = TESTS / "fixtures" / "drills" / "sandbox-toy"


@pytest.mark.parametrize("spec", [s for s in CATALOGUE.specs.values() if samples.files(s)], ids=lambda s: s.id)
def test_sample_solutions(grader, spec):
    assert samples.check_samples(grader, spec, seed=SEED) == []


def test_every_variant_value_has_an_ok_sample_of_its_own():
    """validate checks it too (grader.authoring.samples.check_samples); here without grading."""
    missing = []
    for spec in CATALOGUE.specs.values():
        named = set()
        for path in samples.files(spec):
            words = samples.variant_header(read_text(path, SOLUTION_LIMIT)) or []
            if path.name.startswith("ok_"):
                named |= {tuple(w.split("=", 1)) for w in words}
        missing += [f"{spec.id}: {a.name}={v}" for a in spec.variants for v in a.others() if (a.name, v) not in named]
    assert missing == []


def test_every_drill_has_a_slip():
    """Issue 10: every drill has at least one realistic wrong solution that is none of its traps."""
    slips = {spec.id for spec, path in FILES if samples.expected_trap(read_text(path, SOLUTION_LIMIT)) == samples.SLIP}
    assert CATALOGUE.specs, "no drill specs found"
    assert sorted(set(CATALOGUE.specs) - slips) == []


def test_every_solutions_folder_belongs_to_a_drill_beside_it():
    """validate finds solutions through their drill, so a folder named for no drill of its
    topic folder (a typo, a renamed drill) would silently go unchecked."""
    found = sorted(p for p in (REPO / "drills").glob("*/solutions/*") if p.is_dir())
    checked = {samples.folder(spec) for spec in CATALOGUE.specs.values()}
    assert found, "no sample solutions found"
    assert [str(p) for p in found if p not in checked] == []
    assert not (TESTS / "solutions").exists(), "sample solutions live beside their drill"


@pytest.mark.slow  # grades the toy drill in a subprocess
def test_validate_checks_the_solutions_of_a_drill_path_drill(tmp_path):
    """A DRILL_PATH author gets the same check: a `# trap: none` slip that the grader
    names as a trap is one problem line naming the file, and validate exits 1."""
    folder = tmp_path / "my-drills" / "01-toys"
    (folder / "solutions" / "add-one").mkdir(parents=True)
    spec = TOY.with_suffix(".yaml").read_text().replace("id: sandbox-toy", "id: add-one")
    (folder / "add-one.yaml").write_text(spec + "scale: {dims: {N: 100000}}\n")
    (folder / "add-one.py").write_text(TOY.with_suffix(".py").read_text())
    (folder / "solutions" / "add-one" / "ok_plus.py").write_text("def add_one(x):\n    return x + 1\n")
    bad = folder / "solutions" / "add-one" / "bad_x.py"
    bad.write_text("# trap: none\ndef add_one(x):\n    return x + 2\n")
    env = {**os.environ, "DRILL_PATH": str(folder.parent), "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-m", "trainer", "validate", str(folder / "add-one.yaml"), "--quiet"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"{bad}:1: (solution): `# trap: none`, but the report names the trap add-two" in proc.stderr
    assert "ok_plus.py" not in proc.stderr and "1 problem(s) in 1 file(s)" in proc.stderr, proc.stderr


def test_what_a_sample_promises_is_checked_before_grading():
    """The name and the first line, without running anything: one line per problem, naming the file."""
    spec = CATALOGUE.get("mha-padding")
    at = Path("/x/bad_slip_y.py")
    assert samples.header_problems(spec, Path("/x/ok_y.py"), "import torch\n") == []
    assert samples.header_problems(spec, at, "# trap: none\n") == []
    assert samples.header_problems(spec, Path("/x/y.py"), "") == [
        "/x/y.py:1: (solution): name sample solutions ok_*.py (must pass) or bad_*.py (must fail)"]
    assert samples.header_problems(spec, at, "# trap: no-mask\n") == [
        "/x/bad_slip_y.py:1: (solution): a bad_slip_ file starts with `# trap: none`"]
    unknown = samples.header_problems(spec, Path("/x/bad_y.py"), "# trap: no-such\n")
    assert unknown == ["/x/bad_y.py:1: (solution): `# trap: no-such` is not a trap of mha-padding (its traps: scale-by-d, "
                       "softmax-over-queries, mask-on-queries, no-mask, merge-without-transpose)"]
    assert "names no trap" in samples.header_problems(spec, Path("/x/bad_y.py"), "# trap:\n")[0]


def test_what_a_report_must_say_for_each_kind_of_sample():
    from grader.report import CaseKind, CaseResult, Report, TrapMatch

    def report(verdict: str, trap: str | None = None, *cases: CaseResult) -> Report:
        return Report("d", verdict, list(cases), trap=TrapMatch(trap, "m") if trap else None)

    ok, wrong = CaseResult("a", "f", "pass"), CaseResult("b", "f", "wrong", "values differ\nmore")
    check = samples.report_problems
    assert check(Path("ok_x.py"), "", report("pass", None, ok)) == []
    assert check(Path("ok_x.py"), "", report("wrong", None, ok, wrong)) == [
        "ok_x.py:1: (solution): an ok_ file must pass, but it fails 1 case(s); first: case b, f(): wrong: values differ"]
    assert check(Path("bad_x.py"), "", report("pass", None, ok)) == [
        "bad_x.py:1: (solution): a bad_ file must fail, but it passes every case"]
    assert check(Path("bad_x.py"), "# trap: none\n", report("wrong", None, wrong)) == []
    assert check(Path("bad_x.py"), "# trap: none\n", report("wrong", "t", wrong)) == [
        "bad_x.py:1: (solution): `# trap: none`, but the report names the trap t; a slip must name no trap"]
    assert check(Path("bad_x.py"), "# trap: t\n", report("wrong", "t", wrong)) == []
    assert "the report names no trap; first: case b" in check(Path("bad_x.py"), "# trap: t\n", report("wrong", None, wrong))[0]
    device = CaseResult("device", "f", "error", "cpu and cuda:0; make it with device=x.device", kind=CaseKind.DEVICE)
    assert check(Path("bad_device_x.py"), "", report("error", None, ok, device)) == []
    assert "must pass every real case" in check(Path("bad_device_x.py"), "", report("error", None, wrong, device))[0]
    assert "must fail the device case" in check(Path("bad_device_x.py"), "", report("wrong", None, wrong))[0]
    memory = CaseResult("scale", "f", "memory", "peak 9 GiB; the reference peaks at 1 MiB", kind=CaseKind.SCALE)
    assert check(Path("bad_memory_x.py"), "", report("memory", None, ok, memory)) == []
    assert "must fail the memory-at-scale check; got no scale check ran" in check(
        Path("bad_memory_x.py"), "", report("wrong", None, wrong))[0]
