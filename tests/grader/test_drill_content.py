"""Drill content lives beside the drill, never in grader/: a drill's own oracles in
`<id>.oracle.py` beside its spec (drills/README.md), looked up before the shared ones
of grader/oracles/; the names the parser accepts are read from the code that runs
(grader.spec.names, grader.judge.invariant_kinds), so adding a generator, an oracle
or an invariant is one edit; and no built-in drill id is written anywhere in grader/."""
from __future__ import annotations

import inspect
import re
import shutil
from pathlib import Path

import pytest

from grader.judge import invariant_kinds
from grader.spec import SpecError, names
from grader.spec.parse import parse_spec
from tests.builtin import builtin_catalogue
from tests.paths import REPO

EXAMPLE = REPO / "drills" / "01-broadcasting" / "outer-typo.yaml"  # names its own oracle, mse_per_sample


def _copy(tmp_path: Path, oracle: str | None) -> Path:
    """outer-typo's spec and reference in a fresh folder, with `oracle` as its oracle file (None: none)."""
    folder = tmp_path / "01-broadcasting"
    folder.mkdir()
    spec = folder / EXAMPLE.name
    shutil.copy(EXAMPLE, spec)
    shutil.copy(EXAMPLE.with_suffix(".py"), spec.with_suffix(".py"))
    if oracle is not None:
        names.oracle_file(spec).write_text(oracle)
    return spec


def _problems(path: Path) -> list[str]:
    with pytest.raises(SpecError) as info:
        parse_spec(path)
    return info.value.problems


# ------------------------------------------------------------ own oracles


def test_grader_keeps_only_the_shared_oracles_and_every_other_named_oracle_is_the_drills_own():
    shared = names.shared_oracles()
    users: dict[str, list[str]] = {}
    for spec in builtin_catalogue().specs.values():
        own = names.oracle_file(spec.path)
        own_names = set(names.public_functions(__import__("ast").parse(own.read_text()))) if own.exists() else set()
        for fn in spec.functions:
            if fn.oracle in ("reference",) or fn.oracle.startswith("py:"):
                continue
            assert (fn.oracle in own_names) != (fn.oracle in shared), (spec.id, fn.oracle)
            if fn.oracle in shared:
                users.setdefault(fn.oracle, []).append(spec.id)
    # a shared oracle is shared: named by one drill and imported by another drill's own oracle file
    for name in shared:
        importers = [p for p in (REPO / "drills").rglob("*.oracle.py") if re.search(rf"\bimport\b.*\b{name}\b", p.read_text())]
        assert len(users.get(name, [])) + len(importers) >= 2, name


def test_a_builtin_own_oracle_runs_from_the_drills_oracle_file():
    from grader.cases.prepare import load_reference, oracle_for

    spec = builtin_catalogue().get("outer-typo")
    oracle = oracle_for(spec, spec.function("mse"), load_reference(spec))
    assert inspect.getsourcefile(oracle) == str(names.oracle_file(spec.path))


def test_a_spec_without_its_oracle_file_names_the_oracle_as_unknown_with_its_line(tmp_path):
    spec = _copy(tmp_path, oracle=None)
    (problem,) = _problems(spec)
    line = next(i for i, text in enumerate(spec.read_text().splitlines(), 1) if "oracle: mse_per_sample" in text)
    assert f"{spec}:{line}: functions.mse.oracle: unknown oracle 'mse_per_sample'" in problem
    assert "outer-typo.oracle.py" in problem and "py:name" in problem


def test_a_new_drills_own_oracle_is_found_without_editing_grader_code(tmp_path):
    import torch

    from grader.cases.prepare import load_reference, oracle_for, prepare

    spec_path = _copy(tmp_path, oracle="import torch\n\n\ndef mse_per_sample(pred, target):\n"
                                       "    return torch.mean((pred - target.squeeze(1)) ** 2)\n")
    spec = parse_spec(spec_path)
    prep = prepare(spec, 3)
    call = prep.calls[0]
    expected = torch.mean((call.args[0].double() - call.args[1].double().squeeze(1)) ** 2)
    assert torch.equal(call.expected, expected)
    oracle = oracle_for(spec, spec.function("mse"), load_reference(spec))
    assert inspect.getsourcefile(oracle) == str(names.oracle_file(spec_path))


def test_an_own_oracle_with_a_shared_oracles_name_is_refused(tmp_path):
    spec = _copy(tmp_path, oracle="def mse_per_sample(pred, target):\n    return 0\n\n\n"
                                  "def sdpa_mha(Q, K, V, pad_mask, H):\n    return Q\n")
    (problem,) = _problems(spec)
    assert "(oracle): outer-typo.oracle.py defines sdpa_mha(), which is also the shared oracle " \
           "grader.oracles.attention.sdpa_mha; rename the drill's own one" in problem


def test_an_oracle_file_that_does_not_parse_is_a_problem_naming_its_line(tmp_path):
    spec = _copy(tmp_path, oracle="def mse_per_sample(pred, target):\n    return (\n")
    problems = _problems(spec)
    assert any("(oracle): outer-typo.oracle.py:2 has a syntax error" in p for p in problems), problems


def test_a_private_function_of_the_oracle_file_is_not_an_oracle(tmp_path):
    spec = _copy(tmp_path, oracle="def _helper(x):\n    return x\n\n\ndef mse_per_sample(pred, target):\n    return 0\n")
    text = spec.read_text().replace("oracle: mse_per_sample", "oracle: _helper")
    spec.write_text(text)
    (problem,) = _problems(spec)
    assert "unknown oracle '_helper'" in problem


# ------------------------------------------------------------ registries read from the code


def _module_with(tmp_path: Path, source: Path, extra: str, table: str, entry: str) -> Path:
    text = source.read_text()
    head = f"{table}: " if f"{table}: " in text else f"{table} = "
    at = text.index(head)
    brace = text.index("{", at) + 1
    copy = tmp_path / source.name
    copy.write_text(text[:at] + extra + "\n\n" + text[at:brace] + f"\n    {entry}," + text[brace:])
    return copy


def test_a_generator_added_to_the_table_is_known_with_its_options(tmp_path, monkeypatch):
    copy = _module_with(tmp_path, names.GENERATORS_FILE,
                        "def zeros_like_half(ctx, shape, dtype, fill=0.5, *, twice=False):\n    return None\n",
                        "GENERATORS", '"zeros_like_half": zeros_like_half')
    monkeypatch.setattr(names, "GENERATORS_FILE", copy)
    names.generators.cache_clear()
    try:
        table = names.generators()
        assert table["zeros_like_half"] == ("fill", "twice")
        assert table["randn"] == ("scale", "offset")
    finally:
        monkeypatch.undo()
        names.generators.cache_clear()


def test_an_invariant_added_to_the_checks_is_a_kind_with_its_docstring_as_meaning(tmp_path, monkeypatch):
    copy = _module_with(tmp_path, invariant_kinds.INVARIANTS_FILE,
                        'def odd(call, got, options):\n    """Every value is odd."""\n    return None\n',
                        "CHECKS", '"odd": odd')
    monkeypatch.setattr(invariant_kinds, "INVARIANTS_FILE", copy)
    invariant_kinds.kinds.cache_clear()
    try:
        assert invariant_kinds.kinds()["odd"] == "Every value is odd."
        assert "finite" in invariant_kinds.kinds()
    finally:
        monkeypatch.undo()
        invariant_kinds.kinds.cache_clear()


def test_the_names_read_from_the_code_are_what_the_grader_runs():
    from grader import oracles
    from grader.cases.generators import GENERATORS
    from grader.judge.invariants import CHECKS

    assert {n: tuple(inspect.signature(f).parameters)[3:] for n, f in GENERATORS.items()} == names.generators()
    assert set(CHECKS) == set(invariant_kinds.kinds())
    assert all(invariant_kinds.kinds().values()), "every check has a docstring: its meaning"
    for name, params in names.shared_oracles().items():
        assert tuple(inspect.signature(oracles.get(name)).parameters) == params


def test_a_table_entry_that_is_not_a_function_of_the_module_is_refused(tmp_path):
    copy = _module_with(tmp_path, names.GENERATORS_FILE, "", "GENERATORS", '"gone": somewhere_else')
    with pytest.raises(RuntimeError, match="GENERATORS must map names to functions of the module"):
        names.function_table(copy, "GENERATORS")


# ------------------------------------------------------------ no drill id in grader code

# A drill id that is also a torch operator's name (im2col) may be written where the
# operator is meant: `aten::im2col`, `torch._C._nn.im2col`, an operator regex `^im2col`.
_OPERATOR = re.compile(r"(aten::|_nn\.|\^)$")


def _occurrences(root: Path, ids: list[str]) -> list[str]:
    forms = sorted({form for drill_id in ids for form in (drill_id, drill_id.replace("-", "_"))}, key=len, reverse=True)
    any_form = re.compile(rf"(?<![A-Za-z0-9_-])({'|'.join(map(re.escape, forms))})(?![A-Za-z0-9_-])")
    found = []
    for path in sorted(root.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for m in any_form.finditer(line):
                if not _OPERATOR.search(line[:m.start()]):
                    found.append(f"{path.relative_to(root.parent)}:{number}: {m.group(1)}")
    return found


def test_no_builtin_drill_id_is_written_in_grader_code():
    ids = sorted(builtin_catalogue().specs)
    assert len(ids) >= 30
    assert _occurrences(REPO / "grader", ids) == []


def test_the_drill_id_search_finds_an_id_as_a_string_an_identifier_and_in_a_comment(tmp_path):
    pkg = tmp_path / "grader"
    pkg.mkdir()
    (pkg / "x.py").write_text('A = "kv-cache"\nkv_cache = 1\n# see gqa\nB = "aten::im2col"\nC = "gqa2"\n')
    assert _occurrences(pkg, ["kv-cache", "gqa", "im2col"]) == ["grader/x.py:1: kv-cache", "grader/x.py:2: kv_cache",
                                                                "grader/x.py:3: gqa"]
