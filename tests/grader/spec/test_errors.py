from __future__ import annotations

from tests.paths import REPO

import shutil
from pathlib import Path

import pytest

from grader.catalogue import load_catalogue
from grader.spec import SpecError
from grader.spec.parse import parse_spec

EXAMPLE = REPO / "drills" / "02-attention" / "mha-padding.yaml"


def _write(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "99-test"
    folder.mkdir(exist_ok=True)
    spec = folder / "mha-padding.yaml"
    spec.write_text(text)
    shutil.copy(EXAMPLE.with_suffix(".py"), folder / "mha-padding.py")
    return spec


def _problems(path: Path) -> list[str]:
    with pytest.raises(SpecError) as info:
        parse_spec(path)
    return info.value.problems


def test_example_parses():
    spec = parse_spec(EXAMPLE)
    assert spec.id == "mha-padding" and spec.functions[0].name == "multi_head_attention"


def test_malformed_yaml_names_file_and_line(tmp_path):
    path = _write(tmp_path, "id: mha-padding\ntitle: [unclosed\n")
    problems = _problems(path)
    assert len(problems) == 1
    assert problems[0].startswith(f"{path}:") and "malformed YAML" in problems[0]


def test_unknown_key_names_field_line_and_suggestion(tmp_path):
    text = EXAMPLE.read_text().replace("target_seconds: 420", "target_secs: 420")
    problems = _problems(_write(tmp_path, text))
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if ln.startswith("target_secs"))
    where = f"{tmp_path / '99-test' / 'mha-padding.yaml'}:{line}: target_secs: unknown key"
    assert any(p.startswith(where) and "target_seconds" in p for p in problems)
    assert any("target_seconds: missing required field" in p for p in problems)


def test_all_problems_reported_together(tmp_path):
    text = (EXAMPLE.read_text()
            .replace("topic: attention", "topic: vision")
            .replace("  d: H * dh", "  d: H * q")
            .replace("{name: batch-1, dims: {B: 1}, mask: float32}", "{name: batch-1, dims: {Z: 1}, mask: half}"))
    problems = _problems(_write(tmp_path, text))
    fields = " ".join(problems)
    assert "topic: 'vision' is not one of" in fields
    assert "dims.d: expression uses unknown dimension 'q'" in fields
    assert "cases[6].dims.Z: unknown dimension 'Z'" in fields
    assert "cases[6].mask: 'half' is not one of" in fields
    assert len(problems) >= 4


@pytest.mark.parametrize("rule,message", [
    ("[5, 2]", "bad size range [5, 2]"),
    ("[1, 2, 3]", "a size range is [low, high]"),
    ("H ** dh", "expression 'H ** dh' may only use dimension names"),
    ("{low: 1}", "a dimension rule is"),
])
def test_bad_dimension_rules(tmp_path, rule, message):
    text = EXAMPLE.read_text().replace("  dh: [2, 6]", f"  dh: {rule}")
    problems = _problems(_write(tmp_path, text))
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if ln.startswith("  dh:"))
    assert any(f"mha-padding.yaml:{line}: dims.dh: {message}" in p for p in problems), problems


def test_missing_reference_function_and_trap(tmp_path):
    path = _write(tmp_path, EXAMPLE.read_text().replace("function: trap_no_mask", "function: trap_missing"))
    problems = _problems(path)
    assert any("traps[3].function: the reference file does not define trap_missing()" in p for p in problems)


def test_quiz_answer_must_parse(tmp_path):
    text = EXAMPLE.read_text().replace('a: "64"', 'a: "(B, H**)"')
    problems = _problems(_write(tmp_path, text))
    assert any("quiz[1].a: the canonical answer does not parse" in p for p in problems)


def test_catalogue_collects_broken_files(tmp_path):
    _write(tmp_path, "id: mha-padding\n")
    cat = load_catalogue([tmp_path])
    assert not cat.specs and cat.errors and all("mha-padding.yaml" in e for e in cat.errors)


def test_one_spec_named_twice_is_one_drill_and_two_files_with_one_id_are_refused(tmp_path):
    """`drill validate a.yaml a.yaml`, or a spec and its folder, or DRILL_PATH naming the built-in folder:
    one file read twice told the person it was "already defined by" itself."""
    spec = _write(tmp_path, EXAMPLE.read_text())
    cat = load_catalogue([spec, tmp_path, spec.parent / ".." / "99-test" / spec.name])
    assert list(cat.specs) == ["mha-padding"] and cat.errors == []
    other = tmp_path / "98-copy"
    other.mkdir()
    shutil.copy(spec, other / spec.name)
    shutil.copy(spec.with_suffix(".py"), other / "mha-padding.py")
    cat = load_catalogue([tmp_path])
    assert list(cat.specs) == ["mha-padding"]
    assert len(cat.errors) == 1 and "'mha-padding' is already defined by" in cat.errors[0], cat.errors


def test_a_trap_in_several_functions_names_them_and_their_trap_functions(tmp_path):
    """`also:` (drills/README.md, "traps"): another function of the drill, and a reference function for it."""
    ok = parse_spec(REPO / "drills" / "03-ragged" / "ragged-to-padded.yaml")
    both = next(t for t in ok.all_traps if t.id == "count-last-left-both")
    assert both.functions == {"pad_batch": "trap_count_last_left", "last_hidden": "trap_right_padded_last"}
    text = EXAMPLE.read_text().replace("    function: trap_no_mask\n",
                                       "    function: trap_no_mask\n    also: {attend: trap_nowhere}\n")
    problems = _problems(_write(tmp_path, text))
    assert any("also" in p and "'attend' is not another function of the drill" in p for p in problems)
    text = EXAMPLE.read_text().replace("    function: trap_no_mask\n",
                                       "    function: trap_no_mask\n    also: {multi_head_attention: trap_nowhere}\n")
    assert any("'multi_head_attention' is not another function" in p for p in _problems(_write(tmp_path, text)))
