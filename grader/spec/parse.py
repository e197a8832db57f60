"""`parse_spec`: one spec file to a frozen `Spec`, or a SpecError listing every
problem with its file, line and field (``drills/02-attention/my-drill.yaml:14:
cases[2].dims: unknown dimension 'Q'``).

The file is read with limits (grader.spec.userfile), loaded as YAML with lines,
checked section by section (grader.spec.parts) against the schema, and every
`py:` name is looked up in the reference file beside it.
"""
from __future__ import annotations

import ast
import dataclasses
from pathlib import Path
from typing import Any

import yaml

from grader.spec import names, safe_yaml
from grader.spec.case_id import case_id
from grader.spec.parts import (
    _parse_cases,
    _parse_dims,
    _parse_functions,
    _parse_invariants,
    _parse_quiz,
    _parse_scale,
    _parse_tolerance,
    _parse_traps,
)
from grader.spec.reader import _k, _Problems, _Reader, _str_list, _timeout
from grader.spec.records import (
    ID_RE,
    MAX_NUMBER,
    MAX_TARGET_SECONDS,
    NAME_RE,
    TOPICS,
    FunctionSpec,
    Invariant,
    Spec,
    SpecError,
    Trap,
)
from grader.spec.yaml_lines import _line_of, _LineLoader
from grader.spec.variants import check_case_renames, parse_variants, traps_under_default
from grader.spec.userfile import REFERENCE_LIMIT, SPEC_LIMIT, UnreadableFile, read_source, read_text


def parse_spec(path: Path, text: str | None = None, *, reference_names: set[str] | None = None) -> Spec:
    """Parse and validate one spec file. Raises SpecError with every problem found."""
    path = Path(path)
    problems = _Problems(path)
    top = _Reader(_load(path, text), "", 1, problems, "top")

    drill_id = top.get("id") or ""
    if drill_id and not ID_RE.fullmatch(drill_id):
        problems.add(top.line_of("id"), "id", f"{drill_id!r} must be lower-case words joined by '-'")
    if drill_id and drill_id != path.stem:
        problems.add(top.line_of("id"), "id", f"{drill_id!r} does not match the file name {path.name!r}")
    title = top.get("title") or ""
    topic = top.get("topic") or ""
    if topic and topic not in TOPICS:
        problems.add(top.line_of("topic"), "topic", f"{topic!r} is not one of {', '.join(TOPICS)}")
    prompt = top.get("prompt") or ""
    target = top.get("target_seconds") or 0
    if top.has("target_seconds") and isinstance(target, int) and not 0 < target <= MAX_TARGET_SECONDS:
        problems.add(top.line_of("target_seconds"), "target_seconds",
                     f"must be a positive number of seconds, at most {MAX_TARGET_SECONDS}")
        target = 0
    number = top.get("number", default=0)
    if isinstance(number, int) and not 0 <= number <= MAX_NUMBER:
        problems.add(top.line_of("number"), "number", f"must be a whole number from 0 to {MAX_NUMBER}")
        number = 0
    timeout = _timeout(top, "timeout", problems, "timeout", default=5.0)

    dims = _parse_dims(top, problems)
    dim_names = set(dims)
    oracle_path = names.oracle_file(path)
    functions = _parse_functions(top, problems, dim_names, _oracle_names(oracle_path, problems), oracle_path.name)
    fn_names = {f.name for f in functions}
    cases = _parse_cases(top, problems, dim_names, fn_names)
    cases = tuple(dataclasses.replace(c, id=case_id(c, dims, functions)) for c in cases)
    tolerance = _parse_tolerance(top, problems)
    invariants = _parse_invariants(top, problems, fn_names)
    banned = tuple(_str_list(top, "banned", problems))
    traps = _parse_traps(top, problems, fn_names)
    quiz = _parse_quiz(top, problems)
    hints = tuple(_str_list(top, "hints", problems))
    if top.has("hints") and not hints:
        problems.add(top.line_of("hints"), "hints", "give at least one hint")
    example = _parse_example(top, problems, dim_names)
    allowed_imports = tuple(_str_list(top, "allowed_imports", problems))
    must_call = _parse_must_call(top, problems)

    scale = _parse_scale(top, problems, dims)
    no_device_case = top.get("no_device_case", default="") or ""
    if top.has("no_device_case") and not no_device_case.strip():
        problems.add(top.line_of("no_device_case"), "no_device_case", "give the reason this drill has no device case")
    no_gradient_case = top.get("no_gradient_case", default="") or ""
    if top.has("no_gradient_case") and not no_gradient_case.strip():
        problems.add(top.line_of("no_gradient_case"), "no_gradient_case",
                     "give the reason this drill has no gradient case")

    variants = parse_variants(top, problems, prompt, functions, traps, dim_names, hints)
    check_case_renames(variants, [c.name for c in cases], top, problems)
    all_traps, traps = traps, traps_under_default(traps, variants)

    reference_path = _check_reference(path, top, problems, reference_names, functions, traps, invariants)

    if problems.items:
        raise SpecError(problems.lines())
    return Spec(
        id=drill_id, title=title, topic=topic, prompt=prompt, dims=dims, functions=functions,
        cases=cases, tolerance=tolerance, invariants=invariants, banned=banned, traps=traps,
        quiz=quiz, hints=hints, target_seconds=target, path=path, reference_path=reference_path,
        number=number or 0, seed_trap=top.get("seed_trap", default="") or "",
        solution_notes=top.get("solution_notes", default="") or "",
        example=example, timeout=float(timeout or 5.0), allowed_imports=allowed_imports, must_call=must_call,
        scale=scale, no_device_case=no_device_case.strip(), variants=variants, all_traps=all_traps,
        no_gradient_case=no_gradient_case.strip(),
    )


def _load(path: Path, text: str | None) -> Any:
    """The spec's YAML, read with limits when `text` is not given; a SpecError when unreadable or empty."""
    if text is None:
        try:
            text = read_text(path, SPEC_LIMIT)
        except UnreadableFile as exc:
            raise SpecError([f"{path}:0: (file): {exc.reason}"]) from None
    try:
        data = safe_yaml.load(text, _LineLoader)
    except yaml.YAMLError as exc:
        line, problem = safe_yaml.problem_line(exc, text)
        raise SpecError([f"{path}:{line}: (yaml): malformed YAML: {problem}"]) from None
    if data is None:
        raise SpecError([f"{path}:1: (file): the file is empty"])
    return data


def _parse_example(top: _Reader, problems: _Problems, dim_names: set[str]) -> dict[str, int]:
    """`example`: the sizes the prompt's worked example uses, one per known dimension."""
    example_raw = top.get("example", default={}) or {}
    example = {}
    for k, v in example_raw.items():
        if k not in dim_names:
            problems.add(_line_of(example_raw, k, top.line_of("example")), f"example.{_k(k)}", "unknown dimension")
        elif not isinstance(v, int) or isinstance(v, bool):
            problems.add(_line_of(example_raw, k, top.line_of("example")), f"example.{_k(k)}", "expected an integer size")
        else:
            example[k] = v
    return example


def _parse_must_call(top: _Reader, problems: _Problems) -> dict[str, int]:
    """`must_call`: dotted names the solution must call, each with its least call count."""
    must_call_raw = top.get("must_call", default={}) or {}
    must_call = {}
    for k, v in must_call_raw.items():
        if not isinstance(k, str) or not all(NAME_RE.fullmatch(p) for p in k.split(".")):
            problems.add(_line_of(must_call_raw, k, top.line_of("must_call")), f"must_call.{_k(k)}", "expected a dotted name")
        elif not isinstance(v, int) or isinstance(v, bool) or v < 0:
            problems.add(_line_of(must_call_raw, k, top.line_of("must_call")), f"must_call.{_k(k)}",
                         "expected a call count >= 0")
        else:
            must_call[k] = v
    return must_call


def _check_reference(path: Path, top: _Reader, problems: _Problems, reference_names: set[str] | None,
                     functions: tuple[FunctionSpec, ...], traps: tuple[Trap, ...],
                     invariants: tuple[Invariant, ...]) -> Path:
    """The reference file beside the spec: it must exist and define every `py:` name the spec uses."""
    reference_path = path.with_suffix(".py")
    if not reference_path.exists() and not reference_path.is_symlink():
        problems.add(1, "(reference)", f"missing the reference file {reference_path.name} beside the spec")
    elif reference_names is None:
        reference_names = _defined_names(reference_path, problems)
    if reference_names is not None:
        _check_names(top, problems, reference_names, functions, traps, invariants)
    return reference_path


def _check_names(top: _Reader, problems: _Problems, reference_names: set[str], functions: tuple[FunctionSpec, ...],
                 traps: tuple[Trap, ...], invariants: tuple[Invariant, ...]) -> None:
    """Every function, `py:` oracle, generator, trap matcher and invariant the spec names is defined in the reference."""
    missing = "the reference file does not define {}()"
    for fn in functions:
        if fn.name not in reference_names:
            problems.add(top.line_of("functions"), f"functions.{fn.name}", missing.format(fn.name))
        for attr in ("oracle", "inputs", "checker", "gradient_where"):
            ref = getattr(fn, attr)
            if ref and ref.startswith("py:") and ref[3:] not in reference_names:
                problems.add(top.line_of("functions"), f"functions.{fn.name}.{attr}", missing.format(ref[3:]))
        for a in fn.args:
            if a.gen and a.gen.startswith("py:") and a.gen[3:] not in reference_names:
                problems.add(top.line_of("functions"), f"functions.{fn.name}.args.{a.name}.gen", missing.format(a.gen[3:]))
    for i, trap in enumerate(traps):
        if trap.function not in reference_names:
            problems.add(top.line_of("traps"), f"traps[{i}].function", missing.format(trap.function))
        for name, func in trap.also:
            if func not in reference_names:
                problems.add(top.line_of("traps"), f"traps[{i}].also.{name}", missing.format(func))
        if trap.match and trap.match[3:] not in reference_names:
            problems.add(top.line_of("traps"), f"traps[{i}].match", missing.format(trap.match[3:]))
    for i, inv in enumerate(invariants):
        if inv.kind.startswith("py:") and inv.kind[3:] not in reference_names:
            problems.add(top.line_of("invariants"), f"invariants[{i}].kind", missing.format(inv.kind[3:]))


def _oracle_names(oracle_path: Path, problems: _Problems) -> dict[str, tuple[str, ...]]:
    """The oracles this spec may name: the shared ones, and the public functions of its own
    oracle file beside it when there is one (grader.spec.names). A function of the drill's file
    that is also a shared oracle is a problem: the spec's name would not say which one runs."""
    shared = names.shared_oracles()
    if not oracle_path.exists() and not oracle_path.is_symlink():
        return shared
    try:
        tree = ast.parse(read_source(oracle_path, REFERENCE_LIMIT), filename=str(oracle_path))
    except UnreadableFile as exc:
        problems.add(0, "(oracle)", exc.reason)
        return shared
    except SyntaxError as exc:
        problems.add(0, "(oracle)", f"{oracle_path.name}:{exc.lineno or 0} has a syntax error: {exc.msg}")
        return shared
    except (ValueError, RecursionError, MemoryError) as exc:
        problems.add(0, "(oracle)", f"{oracle_path.name} cannot be parsed: {type(exc).__name__}")
        return shared
    own = names.public_functions(tree)
    for name in sorted(set(own) & set(shared)):
        problems.add(0, "(oracle)", f"{oracle_path.name} defines {name}(), which is also the shared oracle "
                                    f"{names.shared_oracle_module(name)}.{name}; rename the drill's own one")
    return {**shared, **own}


def _defined_names(path: Path, problems: _Problems) -> set[str] | None:
    try:
        tree = ast.parse(read_source(path, REFERENCE_LIMIT), filename=str(path))
    except UnreadableFile as exc:
        problems.add(0, "(reference)", exc.reason)
        return None
    except SyntaxError as exc:
        problems.add(exc.lineno or 0, "(reference)", f"{path.name} has a syntax error: {exc.msg}")
        return None
    except (ValueError, RecursionError, MemoryError) as exc:  # NUL bytes, nesting the parser cannot hold
        problems.add(0, "(reference)", f"{path.name} cannot be parsed: {type(exc).__name__}")
        return None
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    names.add(t.id)
    return names
