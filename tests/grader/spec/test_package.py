"""grader.spec as a package: the grader never imports the trainer, `gen:` and `oracle:`
names are checked when a spec is parsed (from names read out of the code that runs:
tests/grader/test_drill_content.py), the published JSON Schema is the one the parser's schema generates and
every built-in drill meets it, and a case's id follows its generation, nothing else."""
from __future__ import annotations

from tests.paths import REPO

import ast
import json
from pathlib import Path

import pytest
import yaml

from tests.builtin import builtin_catalogue
from tests.grader.spec.test_errors import EXAMPLE, _problems, _write  # a spec beside a copy of its reference
from grader.spec.parse import parse_spec
from grader.spec.schema import SECTIONS, json_schema, schema_path, schema_text

ROOT = REPO


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


# ------------------------------------------------------------ boundaries


def test_no_module_under_grader_imports_trainer():
    offenders = []
    for path in sorted((ROOT / "grader").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                modules = [node.module or ""]
            else:
                continue
            offenders += [f"{path.relative_to(ROOT)}:{node.lineno}: {m}" for m in modules
                          if m == "trainer" or m.startswith("trainer.")]
    assert offenders == []


def test_every_module_of_the_spec_package_is_under_500_lines():
    for path in (ROOT / "grader" / "spec").glob("*.py"):
        assert len(path.read_text().splitlines()) <= 500, path


# ------------------------------------------------ gen: and oracle: names


def test_a_misspelt_generator_is_a_spec_error_with_its_line_and_the_known_names(tmp_path):
    text = EXAMPLE.read_text().replace("Q: {shape: [B, T, d], gen: randn}", "Q: {shape: [B, T, d], gen: randm}")
    problems = _problems(_write(tmp_path, text))
    assert len(problems) == 1
    line = _line(text, "gen: randm")
    assert problems[0].startswith(f"{tmp_path / '99-test' / 'mha-padding.yaml'}:{line}: "
                                  "functions.multi_head_attention.args.Q.gen: unknown generator 'randm'")
    assert "did you mean 'randn'?" in problems[0] and "padding_mask" in problems[0]


def test_a_misspelt_oracle_is_a_spec_error_with_its_line(tmp_path):
    text = EXAMPLE.read_text().replace("oracle: sdpa_mha", "oracle: sdpa_mhaa")
    (problem,) = _problems(_write(tmp_path, text))
    assert f":{_line(text, 'oracle: sdpa_mhaa')}: functions.multi_head_attention.oracle: unknown oracle 'sdpa_mhaa'" in problem
    assert "did you mean 'sdpa_mha'?" in problem and "py:name" in problem


def test_an_option_the_generator_does_not_take_is_a_spec_error(tmp_path):
    text = EXAMPLE.read_text().replace("Q: {shape: [B, T, d], gen: randn}",
                                       "Q: {shape: [B, T, d], gen: randn, options: {sigma: 2}}")
    (problem,) = _problems(_write(tmp_path, text))
    assert "args.Q.options.sigma: generator 'randn' has no option 'sigma' (its options: scale, offset)" in problem


def test_py_names_and_the_reference_oracle_are_not_looked_up_in_the_registry(tmp_path):
    text = EXAMPLE.read_text().replace("oracle: sdpa_mha", "oracle: reference")
    assert parse_spec(_write(tmp_path, text)).functions[0].oracle == "reference"


# ----------------------------------------------------------- JSON Schema


def test_the_committed_json_schema_is_the_generated_one():
    assert schema_path() == ROOT / "data" / "drill-spec.schema.json"
    assert schema_path().read_text() == schema_text(), "run: python -m grader.spec"


def test_the_json_schema_has_every_key_of_the_one_schema():
    schema = json_schema()
    assert set(schema["properties"]) == set(SECTIONS["top"])
    assert schema["required"] == [k for k, f in SECTIONS["top"].items() if f.required]
    for name, fields in SECTIONS.items():
        if name != "top":
            assert set(schema["$defs"][name]["properties"]) == set(fields)
            assert schema["$defs"][name]["additionalProperties"] is False


def _builtin_spec_data() -> list[tuple[str, object]]:
    return [(s.id, yaml.safe_load(s.path.read_text())) for s in builtin_catalogue().specs.values()]


def test_every_builtin_drill_meets_the_json_schema():
    schema = json.loads(schema_path().read_text())
    specs = _builtin_spec_data()
    assert len(specs) >= 30
    import jsonschema  # in [dev]

    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for drill, data in specs:
        assert [e.message for e in validator.iter_errors(data)] == [], drill


def test_the_json_schema_rejects_what_the_parser_rejects():
    import jsonschema

    data = yaml.safe_load(EXAMPLE.read_text())
    validator = jsonschema.Draft202012Validator(json.loads(schema_path().read_text()))
    assert not list(validator.iter_errors(data))
    data["cases"][0]["dtyp"] = "float16"
    data["topic"] = "vision"
    del data["hints"]
    assert len(list(validator.iter_errors(data))) == 3


# -------------------------------------------------------------- case ids


def _ids(tmp_path: Path, text: str) -> dict[str, str]:
    return {c.name: c.id for c in parse_spec(_write(tmp_path, text)).cases}


def test_a_case_id_is_its_name_and_a_fingerprint():
    ids = [c.id for c in parse_spec(EXAMPLE).cases]
    assert ids[0].startswith("fp32-right-padding@") and len(ids[0].split("@")[1]) == 8
    assert len(set(ids)) == len(ids)
    assert ids == [c.id for c in parse_spec(EXAMPLE).cases]  # stable


@pytest.mark.parametrize("old, new, changed", [
    ("Q: {shape: [B, T, d], gen: randn}", "Q: {shape: [B, T, d], gen: uniform}", "all"),  # a generator
    ("Q: {shape: [B, T, d], gen: randn}", "Q: {shape: [B, T, d], gen: randn, options: {scale: 2.0}}", "all"),
    ("  B: [2, 5]", "  B: [2, 6]", "all"),  # a size range
    ("{name: batch-1, dims: {B: 1}, mask: float32}", "{name: batch-1, dims: {B: 2}, mask: float32}", "batch-1"),
    ("{name: fp32-int-mask, dtype: float32, mask: int64}", "{name: fp32-int-mask, dtype: float64, mask: int64}",
     "fp32-int-mask"),
    ("{name: single-real-key, mask: int64, params: {padding: single}}",
     "{name: single-real-key, mask: int64, params: {padding: empty}}", "single-real-key"),
    ("oracle: sdpa_mha", "oracle: reference", "all"),
])
def test_changing_how_a_case_is_generated_changes_its_id(tmp_path, old, new, changed):
    text = EXAMPLE.read_text()
    assert old in text
    before, after = _ids(tmp_path, text), _ids(tmp_path, text.replace(old, new))
    moved = {n for n in before if before[n] != after[n]}
    assert moved == (set(before) if changed == "all" else {changed})


@pytest.mark.parametrize("old, new", [
    ("{name: batch-1, dims: {B: 1}, mask: float32}",
     "{name: batch-1, dims: {B: 1}, mask: float32, description: one sample, heavy: true, timeout: 9}"),
    ("  float32: {atol: 1.0e-5, rtol: 1.0e-4}", "  float32: {atol: 1.0e-4, rtol: 1.0e-3}"),  # a tolerance
    ("title: Multi-head attention with a key padding mask", "title: MHA  # with a comment"),
    ("example: {B: 2, T: 3, S: 5, H: 4, dh: 6}", "example: {B: 3, T: 3, S: 5, H: 4, dh: 6}\n# a comment"),
    ("  - id: scale-by-d\n", "  - id: scale-by-dee\n"),  # a trap
])
def test_prose_tolerances_and_comments_leave_the_ids_alone(tmp_path, old, new):
    text = EXAMPLE.read_text()
    assert old in text
    assert _ids(tmp_path, text) == _ids(tmp_path, text.replace(old, new))
