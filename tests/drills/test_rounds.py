"""Debug rounds (grader.rounds, drills/*/<id>.rounds.yaml): every drill has them, each planted
file fails with its trap named, and undoing the planted lines makes it pass.

The rounds are drill content, trusted like the reference, so the grading test grades them in
this process (grader.authoring.trusted); one slow test grades a round through the sandbox."""
from __future__ import annotations

from pathlib import Path

import pytest

from grader import rounds
from grader.authoring.rounds import MIN_TRAPS
from tests.builtin import builtin_catalogue

CATALOGUE = builtin_catalogue()
SEED = 7


def _rounds(spec):
    found = rounds.load(spec.path, spec.id)
    assert found is not None, f"{spec.id} has no {spec.id}{rounds.SUFFIX}"
    return found


def test_every_drill_has_rounds_for_three_of_its_traps():
    for spec in CATALOGUE.specs.values():
        found = _rounds(spec)
        known = {t.id for t in spec.traps}
        assert set(found.traps()) <= known, spec.id
        assert len(set(found.traps())) >= min(MIN_TRAPS, len(known)), spec.id


def test_planting_and_undoing_are_exact():
    """Undoing every plant gives the base back byte for byte, and the lines named hold the bug."""
    for spec in CATALOGUE.specs.values():
        found = _rounds(spec)
        for rnd in found.rounds:
            planted = rounds.planted(found, rnd)
            rows = planted.code.splitlines()
            for line, plant in zip(planted.lines, rnd.plant):
                if plant.bug:
                    assert rows[line - 1].strip() == plant.bug.split("\n")[0].strip()
            assert planted.code != planted.fixed
            assert planted.undone() == planted.fixed.rstrip("\n") + "\n", (spec.id, rnd.trap)


def test_a_plant_names_one_line_exactly(tmp_path: Path):
    base = "def f(x):\n    y = x\n    y = x\n    return y\n"
    rnd = rounds.Round("t", "b", (rounds.Plant("y = x", "y = -x"),))
    with pytest.raises(rounds.RoundsError, match="occurs 2 times"):
        rounds.buggy(rnd, {"b": base}, "d")
    ok = rounds.buggy(rounds.Round("t", "b", (rounds.Plant("return y", "return -y"),)), {"b": base}, "d")
    assert ok.lines == (4,) and ok.code.endswith("    return -y\n") and ok.correct == ("return y",)
    gone = rounds.buggy(rounds.Round("t", "b", (rounds.Plant("return y", ""),)), {"b": base}, "d")
    assert gone.removed == gone.lines == (3,) and "return" not in gone.code


def test_a_broken_rounds_file_says_what_is_wrong(tmp_path: Path):
    spec = tmp_path / "d.yaml"
    (tmp_path / "d.rounds.yaml").write_text("drill: e\nbases: {b: 'x = 1'}\nrounds:\n  - {trap: t, base: c, plant: []}\n")
    with pytest.raises(rounds.RoundsError) as exc:
        rounds.load(spec, "d")
    text = "\n".join(exc.value.lines)
    assert "drill: must be 'd'" in text and "'c' is not one of the bases (b)" in text
    assert rounds.load(tmp_path / "none.yaml", "none") is None


@pytest.mark.parametrize("spec", sorted(CATALOGUE.specs.values(), key=lambda s: s.id), ids=lambda s: s.id)
def test_each_round_fails_with_its_trap_and_passes_undone(grader, spec):
    from grader.authoring.trusted import grade_source as grade_trusted

    found = _rounds(spec)
    prep = grader.prepared(spec, SEED)
    for name, code in found.bases.items():
        assert grade_trusted(prep, code, f"<base {name}>").verdict == "pass", name
    for rnd in found.rounds:
        planted = rounds.planted(found, rnd)
        report = grade_trusted(prep, planted.code, f"<round {rnd.trap}>")
        assert report.verdict != "pass" and report.trap is not None and report.trap.id == rnd.trap, rnd.trap
        # undoing the planted lines gives the base back (test_planting_and_undoing_are_exact): it passes, above
        assert planted.undone() == found.bases[rnd.base].rstrip("\n") + "\n"


def test_a_round_graded_in_the_sandbox_names_its_trap(grader):
    """The in-process grade is the sandbox's: one round through the real sandbox."""
    spec = CATALOGUE.get("mha-padding")
    planted = rounds.serve(spec.path, spec.id, "scale-by-d")
    report = grader.grade_prepared(grader.prepared(spec, SEED), planted.code)
    assert report.trap is not None and report.trap.id == "scale-by-d"
    assert grader.grade_prepared(grader.prepared(spec, SEED), planted.fixed).verdict == "pass"
