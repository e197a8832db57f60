"""Drill specs: YAML -> frozen dataclasses, validated by one schema.

Every problem in a file is collected and reported together; each names the
file, the line and the field (``drills/02-attention/mha-padding.yaml:14:
cases[2].dims: unknown dimension 'Q'``). Unknown keys are errors.

This module must stay free of torch: `drill list` and `drill show` use it.
"""
from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from grader import safe_yaml
from grader.userfile import REFERENCE_LIMIT, SPEC_LIMIT, UnreadableFile, read_text

TOPICS = ("broadcasting", "attention", "ragged", "gather-scatter", "images-boxes", "einsum-and-rest")
FLOAT_DTYPES = ("float32", "float16", "float64", "bfloat16")
MASK_DTYPES = ("bool", "int64", "float32")
# dtype words a tensor argument or return may use; "float" follows the case dtype,
# "mask" follows the case mask dtype, "loss" accepts the case dtype or float32.
TENSOR_DTYPES = ("float", "mask", "loss", "float32", "float64", "float16", "int64", "int32", "bool")
PY_TYPES = ("int", "float", "bool", "str", "tuple[int, ...]", "list[int]", "list[list[int]]", "list[float]", "None")
ID_RE = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")  # use with fullmatch: `$` accepts a trailing newline
NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX_TIMEOUT = 300.0  # seconds: a spec's or a case's `timeout` is in (0, MAX_TIMEOUT]
MAX_TARGET_SECONDS = 86400
MAX_NUMBER = 9999


class SpecError(Exception):
    """One or more problems in spec files; `problems` holds one line each."""

    def __init__(self, problems: list[str]):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


# ---------------------------------------------------------------- records


@dataclass(frozen=True)
class DimRule:
    name: str
    low: int | None = None
    high: int | None = None
    expr: str | None = None  # derived: "H * dh"

    @property
    def derived(self) -> bool:
        return self.expr is not None


@dataclass(frozen=True)
class ArgSpec:
    name: str
    shape: tuple[str, ...] | None  # tensor argument when set
    dtype: str | None  # tensor dtype word, see TENSOR_DTYPES
    type: str | None  # Python type for non-tensor arguments
    gen: str | None  # generator name, "py:func" or None (value/param)
    value: Any = None  # a literal, a dimension name or an expression
    param: str | None = None  # take the value from the case params
    default: Any = None
    has_default: bool = False
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def is_tensor(self) -> bool:
        return self.shape is not None


@dataclass(frozen=True)
class ReturnSpec:
    shape: tuple[str, ...] | None
    dtype: str | None
    type: str | None
    name: str | None = None

    @property
    def is_tensor(self) -> bool:
        return self.shape is not None


@dataclass(frozen=True)
class FunctionSpec:
    name: str
    args: tuple[ArgSpec, ...]
    returns: tuple[ReturnSpec, ...]
    tuple_return: bool
    raises: tuple[str, ...] = ()
    oracle: str = "reference"
    inputs: str | None = None  # "py:make_inputs" builds every argument at once
    checker: str | None = None  # "py:check" replaces the value comparison
    exact: bool = False  # compare floating outputs exactly

    def signature(self) -> str:
        parts = []
        for a in self.args:
            text = a.name
            if a.type:
                text += f": {a.type}"
            if a.has_default:
                text += f" = {a.default!r}"
            parts.append(text)
        return f"{self.name}({', '.join(parts)})"


@dataclass(frozen=True)
class CaseSpec:
    name: str
    description: str = ""
    dims: dict[str, Any] = field(default_factory=dict)  # int or a dimension name
    dtype: str = "float32"
    mask: str = "bool"
    params: dict[str, Any] = field(default_factory=dict)
    only: tuple[str, ...] = ()  # functions this case applies to (empty: all)
    heavy: bool = False  # never run traps in-process on this case
    timeout: float | None = None


@dataclass(frozen=True)
class Tolerance:
    atol: float
    rtol: float


@dataclass(frozen=True)
class Invariant:
    kind: str
    function: str | None
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Trap:
    id: str
    message: str
    function: str
    replaces: str
    why: str = ""
    memory: bool = False  # a `memory` verdict on a heavy case counts as this trap (e.g. an (N, M, d) broadcast)
    match: str | None = None  # "py:name": (call, got, trap_output) -> bool replaces the output comparison


@dataclass(frozen=True)
class Quiz:
    q: str
    a: str
    why: str = ""
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class ScaleSpec:
    """Production-like sizes for the memory-at-scale check (fake tensors, nothing allocated)."""

    dims: dict[str, int]
    budget: float | None = None  # the solution's peak may be at most budget x the reference's


@dataclass(frozen=True)
class Spec:
    id: str
    title: str
    topic: str
    prompt: str
    dims: dict[str, DimRule]
    functions: tuple[FunctionSpec, ...]
    cases: tuple[CaseSpec, ...]
    tolerance: dict[str, Tolerance]
    invariants: tuple[Invariant, ...]
    banned: tuple[str, ...]
    traps: tuple[Trap, ...]
    quiz: tuple[Quiz, ...]
    hints: tuple[str, ...]
    target_seconds: int
    path: Path
    reference_path: Path
    number: int = 0
    seed_trap: str = ""
    solution_notes: str = ""
    example: dict[str, int] = field(default_factory=dict)
    timeout: float = 5.0
    allowed_imports: tuple[str, ...] = ()
    must_call: dict[str, int] = field(default_factory=dict)  # dotted name -> exact calls per function call
    scale: ScaleSpec | None = None
    no_device_case: str = ""  # why this drill has no device case (opt-out), or ""

    def function(self, name: str) -> FunctionSpec:
        for f in self.functions:
            if f.name == name:
                return f
        raise KeyError(name)

    @property
    def floating(self) -> bool:
        return any(c.dtype in FLOAT_DTYPES and c.dtype != "float32" for c in self.cases)

    def skeleton(self) -> str:
        """The unsolved starting buffer: signatures, shape comments, no body."""
        lines = ["import torch", ""]
        for fn in self.functions:
            lines.append("")
            lines.append(f"def {fn.signature()}:")
            for a in fn.args:
                if a.is_tensor:
                    lines.append(f"    # {a.name}: {shape_names(a.shape)}")
            rets = [_return_text(r) for r in fn.returns]
            if fn.tuple_return:
                lines.append(f"    # returns: ({', '.join(rets)})")
            elif rets:
                lines.append(f"    # returns: {rets[0]}")
            lines.append("    pass")
            lines.append("")
        return "\n".join(lines).lstrip("\n") + "\n"


def shape_names(names: tuple[str, ...] | list[str] | None) -> str:
    """A shape in dimension names, in Python's notation: (N,) for one axis, () for none."""
    names = tuple(names or ())
    return "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"


def _return_text(r: ReturnSpec) -> str:
    head = f"{r.name} " if r.name else ""
    if r.is_tensor:
        return f"{head}{shape_names(r.shape)} {r.dtype}"
    return f"{head}{r.type}"


# ------------------------------------------------------- YAML with lines


class _LineLoader(safe_yaml.LimitedLoader):
    """No aliases, bounded depth, plain keys, no control characters in text (safe_yaml);
    mappings and lists remember their lines."""

    plain_text = True


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> dict:
    safe_yaml.check_keys(node)
    mapping = {}
    lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in mapping:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark
            )
        mapping[key] = loader.construct_object(value_node, deep=True)
        lines[key] = key_node.start_mark.line + 1
    return _Mapping(mapping, lines, node.start_mark.line + 1)


class _Mapping(dict):
    """A dict that remembers the line of each key."""

    def __init__(self, data: dict, lines: dict, line: int):
        super().__init__(data)
        self.lines = lines
        self.line = line


class _Seq(list):
    def __init__(self, data: list, lines: list[int], line: int):
        super().__init__(data)
        self.lines = lines
        self.line = line


def _construct_sequence(loader: _LineLoader, node: yaml.SequenceNode) -> list:
    items = [loader.construct_object(child, deep=True) for child in node.value]
    return _Seq(items, [child.start_mark.line + 1 for child in node.value], node.start_mark.line + 1)


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


def _line_of(container: Any, key: Any, fallback: int) -> int:
    if isinstance(container, _Mapping):
        return container.lines.get(key, container.line)
    if isinstance(container, _Seq) and isinstance(key, int) and key < len(container.lines):
        return container.lines[key]
    return fallback


# --------------------------------------------------------------- checker


class _Problems:
    def __init__(self, path: Path):
        self.path = path
        self.items: list[tuple[int, str, str]] = []

    def add(self, line: int, where: str, message: str) -> None:
        self.items.append((line, where, message))

    def lines(self) -> list[str]:
        return [f"{self.path}:{line}: {where}: {msg}" for line, where, msg in sorted(self.items, key=lambda x: x[0])]


class _Reader:
    """Typed access to a mapping that records every problem instead of raising."""

    def __init__(self, data: Any, where: str, line: int, problems: _Problems, allowed: set[str]):
        self.data = data if isinstance(data, dict) else {}
        self.where = where
        self.line = getattr(data, "line", line)
        self.p = problems
        if not isinstance(data, dict):
            problems.add(line, where or "(top level)", f"expected a mapping, got {type(data).__name__}")
        for key in self.data:
            if key not in allowed:
                hint = _close(key, allowed)
                problems.add(_line_of(self.data, key, self.line), self._at(key), f"unknown key{hint}")

    def _at(self, key: Any) -> str:
        return f"{self.where}.{_k(key)}" if self.where else _k(key)

    def line_of(self, key: Any) -> int:
        return _line_of(self.data, key, self.line)

    def has(self, key: str) -> bool:
        return key in self.data

    def get(self, key: str, kind: type | tuple[type, ...], required: bool = True, default: Any = None) -> Any:
        if key not in self.data:
            if required:
                self.p.add(self.line, self._at(key), "missing required field")
            return default
        value = self.data[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            if abs(value) > 1e300:
                self.p.add(self.line_of(key), self._at(key), "the number is too large")
                return default
            return float(value)
        if isinstance(value, bool) and kind is not bool and (kind == int or (isinstance(kind, tuple) and bool not in kind)):
            self.p.add(self.line_of(key), self._at(key), f"expected {_kind_name(kind)}, got a boolean")
            return default
        if not isinstance(value, kind):
            self.p.add(self.line_of(key), self._at(key), f"expected {_kind_name(kind)}, got {type(value).__name__}")
            return default
        return value


def _k(key: Any, limit: int = 40) -> str:
    """A key as it appears in a problem's field path: its text, cut at ``limit`` characters."""
    text = str(key)
    return text if len(text) <= limit else text[:limit] + "..."


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {str: "text", int: "an integer", float: "a number", bool: "true/false", list: "a list", dict: "a mapping"}
    if isinstance(kind, tuple):
        return " or ".join(names.get(k, k.__name__) for k in kind)
    return names.get(kind, kind.__name__)


def _close(key: Any, allowed: set[str]) -> str:
    import difflib

    match = difflib.get_close_matches(str(key)[:100], sorted(allowed), n=1)
    return f" (did you mean '{match[0]}'?)" if match else f" (allowed: {', '.join(sorted(allowed))})"


MAX_EXPR = 200
_EXPR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def expr_names(expr: str) -> list[str]:
    return _EXPR_NAME.findall(expr)


def check_expr(expr: str) -> str | None:
    """Return a problem with a dimension expression, or None. Allowed: names, ints, + - * // ( )."""
    if len(expr) > MAX_EXPR:
        return f"an expression is at most {MAX_EXPR} characters"
    try:
        tree = ast.parse(expr, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return f"cannot parse expression {expr!r}"
    for node in ast.walk(tree):
        if isinstance(node, (ast.Expression, ast.BinOp, ast.Name, ast.Load, ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.UnaryOp, ast.USub)):
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            continue
        return f"expression {expr!r} may only use dimension names, integers, + - * //"
    return None


def eval_expr(expr: str | int, sizes: dict[str, int]) -> int:
    """Evaluate a dimension expression ("H * dh", "t + 1", 3) against sizes."""
    if isinstance(expr, int):
        return expr
    if expr in sizes:
        return sizes[expr]
    tree = ast.parse(expr, mode="eval")

    def ev(node: ast.AST) -> int:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant):
            return int(node.value)
        if isinstance(node, ast.Name):
            return sizes[node.id]
        if isinstance(node, ast.UnaryOp):
            return -ev(node.operand)
        if isinstance(node, ast.BinOp):
            a, b = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Add):
                return a + b
            if isinstance(node.op, ast.Sub):
                return a - b
            if isinstance(node.op, ast.Mult):
                return a * b
            if isinstance(node.op, ast.FloorDiv):
                return a // b
        raise ValueError(f"bad expression {expr!r}")

    return ev(tree)


# ------------------------------------------------------------- the schema

_TOP_KEYS = {
    "id", "number", "title", "topic", "prompt", "dims", "functions", "cases", "tolerance",
    "invariants", "banned", "traps", "quiz", "hints", "target_seconds", "seed_trap",
    "solution_notes", "example", "timeout", "allowed_imports", "must_call", "scale", "no_device_case",
}
_SCALE_KEYS = {"dims", "budget"}
_ARG_KEYS = {"shape", "dtype", "type", "gen", "value", "param", "default", "options"}
_RET_KEYS = {"shape", "dtype", "type", "name"}
_FN_KEYS = {"args", "returns", "raises", "oracle", "inputs", "checker", "exact"}
_CASE_KEYS = {"name", "description", "dims", "dtype", "mask", "params", "only", "heavy", "timeout"}
_TRAP_KEYS = {"id", "message", "function", "replaces", "why", "memory", "match"}
_QUIZ_KEYS = {"q", "a", "why", "choices"}
_INV_KEYS = {"kind", "function", "options"}
_TOL_KEYS = {"atol", "rtol"}


def parse_spec(path: Path, text: str | None = None, *, reference_names: set[str] | None = None) -> Spec:
    """Parse and validate one spec file. Raises SpecError with every problem found."""
    path = Path(path)
    problems = _Problems(path)
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
    top = _Reader(data, "", 1, problems, _TOP_KEYS)

    drill_id = top.get("id", str) or ""
    if drill_id and not ID_RE.fullmatch(drill_id):
        problems.add(top.line_of("id"), "id", f"{drill_id!r} must be lower-case words joined by '-'")
    if drill_id and drill_id != path.stem:
        problems.add(top.line_of("id"), "id", f"{drill_id!r} does not match the file name {path.name!r}")
    title = top.get("title", str) or ""
    topic = top.get("topic", str) or ""
    if topic and topic not in TOPICS:
        problems.add(top.line_of("topic"), "topic", f"{topic!r} is not one of {', '.join(TOPICS)}")
    prompt = top.get("prompt", str) or ""
    target = top.get("target_seconds", int) or 0
    if top.has("target_seconds") and isinstance(target, int) and not 0 < target <= MAX_TARGET_SECONDS:
        problems.add(top.line_of("target_seconds"), "target_seconds",
                     f"must be a positive number of seconds, at most {MAX_TARGET_SECONDS}")
        target = 0
    number = top.get("number", int, required=False, default=0)
    if isinstance(number, int) and not 0 <= number <= MAX_NUMBER:
        problems.add(top.line_of("number"), "number", f"must be a whole number from 0 to {MAX_NUMBER}")
        number = 0
    timeout = _timeout(top, "timeout", problems, "timeout", default=5.0)

    dims = _parse_dims(top, problems)
    dim_names = set(dims)
    functions = _parse_functions(top, problems, dim_names)
    fn_names = {f.name for f in functions}
    cases = _parse_cases(top, problems, dim_names, fn_names)
    tolerance = _parse_tolerance(top, problems)
    invariants = _parse_invariants(top, problems, fn_names)
    banned = tuple(_str_list(top, "banned", problems, required=False))
    traps = _parse_traps(top, problems, fn_names)
    quiz = _parse_quiz(top, problems)
    hints = tuple(_str_list(top, "hints", problems))
    if top.has("hints") and not hints:
        problems.add(top.line_of("hints"), "hints", "give at least one hint")
    example_raw = top.get("example", dict, required=False, default={}) or {}
    example = {}
    for k, v in example_raw.items():
        if k not in dim_names:
            problems.add(_line_of(example_raw, k, top.line_of("example")), f"example.{_k(k)}", "unknown dimension")
        elif not isinstance(v, int) or isinstance(v, bool):
            problems.add(_line_of(example_raw, k, top.line_of("example")), f"example.{_k(k)}", "expected an integer size")
        else:
            example[k] = v
    allowed_imports = tuple(_str_list(top, "allowed_imports", problems, required=False))
    must_call_raw = top.get("must_call", dict, required=False, default={}) or {}
    must_call = {}
    for k, v in must_call_raw.items():
        if not isinstance(k, str) or not all(NAME_RE.fullmatch(p) for p in k.split(".")):
            problems.add(_line_of(must_call_raw, k, top.line_of("must_call")), f"must_call.{_k(k)}", "expected a dotted name")
        elif not isinstance(v, int) or isinstance(v, bool) or v < 0:
            problems.add(_line_of(must_call_raw, k, top.line_of("must_call")), f"must_call.{_k(k)}", "expected a call count >= 0")
        else:
            must_call[k] = v

    scale = _parse_scale(top, problems, dims)
    no_device_case = top.get("no_device_case", str, required=False, default="") or ""
    if top.has("no_device_case") and not no_device_case.strip():
        problems.add(top.line_of("no_device_case"), "no_device_case", "give the reason this drill has no device case")

    reference_path = path.with_suffix(".py")
    if not reference_path.exists() and not reference_path.is_symlink():
        problems.add(1, "(reference)", f"missing the reference file {reference_path.name} beside the spec")
    elif reference_names is None:
        reference_names = _defined_names(reference_path, problems)
    if reference_names is not None:
        for fn in functions:
            if fn.name not in reference_names:
                problems.add(top.line_of("functions"), f"functions.{fn.name}", f"the reference file does not define {fn.name}()")
            for attr in ("oracle", "inputs", "checker"):
                ref = getattr(fn, attr)
                if ref and ref.startswith("py:") and ref[3:] not in reference_names:
                    problems.add(top.line_of("functions"), f"functions.{fn.name}.{attr}", f"the reference file does not define {ref[3:]}()")
            for a in fn.args:
                if a.gen and a.gen.startswith("py:") and a.gen[3:] not in reference_names:
                    problems.add(top.line_of("functions"), f"functions.{fn.name}.args.{a.name}.gen", f"the reference file does not define {a.gen[3:]}()")
        for i, trap in enumerate(traps):
            if trap.function not in reference_names:
                problems.add(top.line_of("traps"), f"traps[{i}].function", f"the reference file does not define {trap.function}()")
            if trap.match and trap.match[3:] not in reference_names:
                problems.add(top.line_of("traps"), f"traps[{i}].match", f"the reference file does not define {trap.match[3:]}()")
        for i, inv in enumerate(invariants):
            if inv.kind.startswith("py:") and inv.kind[3:] not in reference_names:
                problems.add(top.line_of("invariants"), f"invariants[{i}].kind", f"the reference file does not define {inv.kind[3:]}()")

    if problems.items:
        raise SpecError(problems.lines())
    return Spec(
        id=drill_id, title=title, topic=topic, prompt=prompt, dims=dims, functions=functions,
        cases=cases, tolerance=tolerance, invariants=invariants, banned=banned, traps=traps,
        quiz=quiz, hints=hints, target_seconds=target, path=path, reference_path=reference_path,
        number=number or 0, seed_trap=top.get("seed_trap", str, required=False, default="") or "",
        solution_notes=top.get("solution_notes", str, required=False, default="") or "",
        example=example, timeout=float(timeout or 5.0), allowed_imports=allowed_imports, must_call=must_call,
        scale=scale, no_device_case=no_device_case.strip(),
    )


def _timeout(r: "_Reader", key: str, problems: "_Problems", where: str, default: float | None) -> float | None:
    """A `timeout` in seconds: finite, above 0, at most MAX_TIMEOUT (a problem otherwise)."""
    value = r.get(key, float, required=False, default=default)
    if value is None or value == default:
        return value
    if not math.isfinite(value) or not 0 < value <= MAX_TIMEOUT:
        problems.add(r.line_of(key), where, f"must be a number of seconds above 0 and at most {MAX_TIMEOUT:g}, not {value!r}")
        return default
    return float(value)


def _parse_scale(top: _Reader, problems: _Problems, dims: dict[str, DimRule]) -> ScaleSpec | None:
    """`scale: {dims: {N: 4096, ...}, budget: 2}`: every ranged dimension gets a size; derived ones follow."""
    if not top.has("scale"):
        return None
    r = _Reader(top.data["scale"], "scale", top.line_of("scale"), problems, _SCALE_KEYS)
    raw = r.get("dims", dict) or {}
    sizes: dict[str, int] = {}
    for k, v in raw.items():
        line = _line_of(raw, k, r.line_of("dims"))
        if k not in dims:
            problems.add(line, f"scale.dims.{k}", "unknown dimension (declare it under dims)")
        elif dims[k].derived:
            problems.add(line, f"scale.dims.{k}", f"derived from {dims[k].expr}; give the dimensions it is made of")
        elif not isinstance(v, int) or isinstance(v, bool) or v < 1:
            problems.add(line, f"scale.dims.{k}", "expected a size >= 1")
        else:
            sizes[k] = v
    for n, rule in dims.items():  # a fixed dimension keeps its size unless given
        if not rule.derived and rule.low == rule.high and n not in raw:
            sizes[n] = int(rule.low or 0)
    missing = [n for n, rule in dims.items() if not rule.derived and n not in sizes and n not in raw]
    if raw and missing:
        problems.add(r.line_of("dims"), "scale.dims", f"give a size for {', '.join(missing)}")
    if not missing and all(k in sizes for k in raw):
        for rule in dims.values():
            if rule.derived:
                try:
                    sizes[rule.name] = eval_expr(rule.expr or "0", sizes)
                except (KeyError, ValueError, ZeroDivisionError):
                    pass  # the dims problem is reported where the rule is
    budget = r.get("budget", float, required=False)
    if budget is not None and budget < 1.0:
        problems.add(r.line_of("budget"), "scale.budget", "a budget is a multiple of the reference's peak, >= 1")
        budget = None
    return ScaleSpec(sizes, budget)


def _defined_names(path: Path, problems: _Problems) -> set[str] | None:
    try:
        tree = ast.parse(read_text(path, REFERENCE_LIMIT), filename=str(path))
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


def _str_list(top: _Reader, key: str, problems: _Problems, required: bool = True) -> list[str]:
    raw = top.get(key, list, required=required, default=[]) or []
    out = []
    for i, item in enumerate(raw):
        if not isinstance(item, str) or not item.strip():
            problems.add(_line_of(raw, i, top.line_of(key)), f"{key}[{i}]", "expected non-empty text")
        else:
            out.append(item)
    return out


def _parse_dims(top: _Reader, problems: _Problems) -> dict[str, DimRule]:
    raw = top.get("dims", dict, required=False, default={}) or {}
    dims: dict[str, DimRule] = {}
    for name, rule in raw.items():
        line = _line_of(raw, name, top.line_of("dims"))
        where = f"dims.{_k(name)}"
        if not isinstance(name, str) or not NAME_RE.fullmatch(name):
            problems.add(line, where, "a dimension name must be an identifier")
            continue
        if isinstance(rule, list):
            if len(rule) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in rule):
                problems.add(line, where, "a size range is [low, high] with two integers")
                continue
            low, high = rule
            if low < 0 or high < low:
                problems.add(line, where, f"bad size range [{low}, {high}]: need 0 <= low <= high")
                continue
            dims[name] = DimRule(name, low=low, high=high)
        elif isinstance(rule, int) and not isinstance(rule, bool):
            if rule < 0:
                problems.add(line, where, "a size must be >= 0")
                continue
            dims[name] = DimRule(name, low=rule, high=rule)
        elif isinstance(rule, str):
            bad = check_expr(rule)
            if bad:
                problems.add(line, where, bad)
                continue
            dims[name] = DimRule(name, expr=rule)
        else:
            problems.add(line, where, "a dimension rule is [low, high], a fixed size, or an expression like 'H * dh'")
    for d in dims.values():
        if d.expr:
            for n in expr_names(d.expr):
                if n not in dims:
                    problems.add(_line_of(raw, d.name, top.line_of("dims")), f"dims.{d.name}", f"expression uses unknown dimension '{n}'")
                elif dims[n].expr:
                    problems.add(_line_of(raw, d.name, top.line_of("dims")), f"dims.{d.name}", f"expression uses derived dimension '{n}'; derive from ranged dimensions only")
    return dims


def _check_shape(shape: Any, dim_names: set[str], line: int, where: str, problems: _Problems) -> tuple[str, ...] | None:
    if not isinstance(shape, list):
        problems.add(line, where, "a shape is a list of dimension names, e.g. [B, T, d]; [] for a 0-d tensor")
        return None
    out = []
    for item in shape:
        text = str(item)
        if isinstance(item, int) and not isinstance(item, bool):
            out.append(text)
            continue
        if not isinstance(item, str):
            problems.add(line, where, f"shape entry {item!r} must be a dimension name or expression")
            continue
        bad = check_expr(text)
        if bad:
            problems.add(line, where, bad)
            continue
        unknown = [n for n in expr_names(text) if n not in dim_names]
        if unknown:
            problems.add(line, where, f"unknown dimension '{unknown[0]}' (declare it under dims)")
            continue
        out.append(text)
    return tuple(out)


def _parse_functions(top: _Reader, problems: _Problems, dim_names: set[str]) -> tuple[FunctionSpec, ...]:
    raw = top.get("functions", dict) or {}
    if top.has("functions") and not raw:
        problems.add(top.line_of("functions"), "functions", "name at least one function to write")
    out = []
    for fname, body in raw.items():
        line = _line_of(raw, fname, top.line_of("functions"))
        where = f"functions.{_k(fname)}"
        if not isinstance(fname, str) or not NAME_RE.fullmatch(fname):
            problems.add(line, where, "a function name must be a Python identifier")
            continue
        r = _Reader(body, where, line, problems, _FN_KEYS)
        args_raw = r.get("args", dict) or {}
        args = []
        for aname, adef in args_raw.items():
            aline = _line_of(args_raw, aname, r.line_of("args"))
            args.append(_parse_arg(aname, adef, aline, f"{where}.args.{_k(aname)}", problems, dim_names))
        rets_raw = r.get("returns", (dict, list)) or {}
        tuple_return = isinstance(rets_raw, list)
        rets = []
        for i, rdef in enumerate(rets_raw if tuple_return else [rets_raw]):
            rline = _line_of(rets_raw, i, r.line_of("returns")) if tuple_return else r.line_of("returns")
            rw = f"{where}.returns[{i}]" if tuple_return else f"{where}.returns"
            rets.append(_parse_return(rdef, rline, rw, problems, dim_names))
        raises = tuple(_as_list(r.get("raises", (list, str), required=False, default=[])))
        for exc in raises:
            if exc not in _EXCEPTIONS:
                problems.add(r.line_of("raises"), f"{where}.raises", f"{exc!r} is not a built-in exception name")
        oracle = r.get("oracle", str, required=False, default="reference") or "reference"
        inputs = r.get("inputs", str, required=False)
        checker = r.get("checker", str, required=False)
        for key, value in (("inputs", inputs), ("checker", checker)):
            if value is not None and not value.startswith("py:"):
                problems.add(r.line_of(key), f"{where}.{key}", "must name a function of the reference file as 'py:name'")
        exact = r.get("exact", bool, required=False, default=False)
        out.append(FunctionSpec(fname, tuple(a for a in args if a), tuple(x for x in rets if x), tuple_return,
                                raises, oracle, inputs, checker, bool(exact)))
    return tuple(out)


_EXCEPTIONS = {"ValueError", "RuntimeError", "TypeError", "IndexError", "KeyError", "AssertionError", "ZeroDivisionError"}


def _as_list(value: Any) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _parse_arg(name: Any, adef: Any, line: int, where: str, problems: _Problems, dim_names: set[str]) -> ArgSpec | None:
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        problems.add(line, where, "an argument name must be a Python identifier")
        return None
    r = _Reader(adef, where, line, problems, _ARG_KEYS)
    shape = None
    if r.has("shape"):
        shape = _check_shape(r.data["shape"], dim_names, r.line_of("shape"), f"{where}.shape", problems)
    dtype = r.get("dtype", str, required=False)
    typ = r.get("type", str, required=False)
    if shape is None and typ is None and not r.has("shape"):
        problems.add(line, where, "give either a tensor 'shape' or a Python 'type'")
    if shape is not None and dtype is None:
        dtype = "float"
    if dtype is not None and dtype not in TENSOR_DTYPES:
        problems.add(r.line_of("dtype"), f"{where}.dtype", f"{dtype!r} is not one of {', '.join(TENSOR_DTYPES)}")
    if typ is not None and typ not in PY_TYPES:
        problems.add(r.line_of("type"), f"{where}.type", f"{typ!r} is not one of {', '.join(PY_TYPES)}")
    gen = r.get("gen", str, required=False)
    param = r.get("param", str, required=False)
    value = r.data.get("value")
    if shape is not None and gen is None:
        problems.add(line, where, "a tensor argument needs a generator ('gen')")
    if shape is None and typ is not None and gen is None and param is None and "value" not in r.data:
        problems.add(line, where, "a Python argument needs 'value', 'param' or 'gen'")
    if isinstance(value, str):
        bad = check_expr(value)
        if bad:
            problems.add(r.line_of("value"), f"{where}.value", bad)
        else:
            unknown = [n for n in expr_names(value) if n not in dim_names]
            if unknown:
                problems.add(r.line_of("value"), f"{where}.value", f"unknown dimension '{unknown[0]}'")
    options = r.get("options", dict, required=False, default={}) or {}
    return ArgSpec(name, shape, dtype, typ, gen, value, param, r.data.get("default"), "default" in r.data, dict(options))


def _parse_return(rdef: Any, line: int, where: str, problems: _Problems, dim_names: set[str]) -> ReturnSpec | None:
    r = _Reader(rdef, where, line, problems, _RET_KEYS)
    shape = None
    if r.has("shape"):
        shape = _check_shape(r.data["shape"], dim_names, r.line_of("shape"), f"{where}.shape", problems)
    dtype = r.get("dtype", str, required=False)
    typ = r.get("type", str, required=False)
    if not r.has("shape") and typ is None:
        problems.add(line, where, "give either a tensor 'shape' or a Python 'type'")
    if shape is not None and dtype is None:
        problems.add(line, where, "a tensor return needs a 'dtype' (float, loss, float32, int64, bool, ...)")
    if dtype is not None and dtype not in TENSOR_DTYPES:
        problems.add(r.line_of("dtype"), f"{where}.dtype", f"{dtype!r} is not one of {', '.join(TENSOR_DTYPES)}")
    if typ is not None and typ not in PY_TYPES:
        problems.add(r.line_of("type"), f"{where}.type", f"{typ!r} is not one of {', '.join(PY_TYPES)}")
    return ReturnSpec(shape, dtype, typ, r.get("name", str, required=False))


def _parse_cases(top: _Reader, problems: _Problems, dim_names: set[str], fn_names: set[str]) -> tuple[CaseSpec, ...]:
    raw = top.get("cases", list) or []
    if top.has("cases") and not raw:
        problems.add(top.line_of("cases"), "cases", "list at least one case")
    seen: set[str] = set()
    out = []
    for i, cdef in enumerate(raw):
        line = _line_of(raw, i, top.line_of("cases"))
        where = f"cases[{i}]"
        r = _Reader(cdef, where, line, problems, _CASE_KEYS)
        name = r.get("name", str) or f"case-{i}"
        if name in seen:
            problems.add(r.line_of("name"), f"{where}.name", f"duplicate case name {name!r}")
        seen.add(name)
        cdims = r.get("dims", dict, required=False, default={}) or {}
        for k, v in cdims.items():
            dline = _line_of(cdims, k, r.line_of("dims"))
            if k not in dim_names:
                problems.add(dline, f"{where}.dims.{_k(k)}", f"unknown dimension '{_k(k)}'")
            elif isinstance(v, bool) or not isinstance(v, (int, str)) or (isinstance(v, str) and v not in dim_names):
                problems.add(dline, f"{where}.dims.{_k(k)}", "a case size is an integer or the name of another dimension")
        dtype = r.get("dtype", str, required=False, default="float32") or "float32"
        if dtype not in FLOAT_DTYPES:
            problems.add(r.line_of("dtype"), f"{where}.dtype", f"{dtype!r} is not one of {', '.join(FLOAT_DTYPES)}")
        mask = r.get("mask", str, required=False, default="bool") or "bool"
        if mask not in MASK_DTYPES:
            problems.add(r.line_of("mask"), f"{where}.mask", f"{mask!r} is not one of {', '.join(MASK_DTYPES)}")
        only = tuple(_as_list(r.get("only", (list, str), required=False, default=[])))
        for f in only:
            if f not in fn_names:
                problems.add(r.line_of("only"), f"{where}.only", f"unknown function '{f}'")
        params = r.get("params", dict, required=False, default={}) or {}
        timeout = _timeout(r, "timeout", problems, f"{where}.timeout", default=None)
        out.append(CaseSpec(name, r.get("description", str, required=False, default="") or "", dict(cdims),
                            dtype, mask, dict(params), only, bool(r.get("heavy", bool, required=False, default=False)), timeout))
    return tuple(out)


def _parse_tolerance(top: _Reader, problems: _Problems) -> dict[str, Tolerance]:
    raw = top.get("tolerance", dict, required=False, default={}) or {}
    out = {
        "float32": Tolerance(1e-5, 1e-4),
        "float16": Tolerance(2e-3, 1e-2),
        "float64": Tolerance(1e-10, 1e-8),
        "bfloat16": Tolerance(2e-2, 5e-2),
    }
    for dtype, tdef in raw.items():
        line = _line_of(raw, dtype, top.line_of("tolerance"))
        where = f"tolerance.{_k(dtype)}"
        if dtype not in FLOAT_DTYPES:
            problems.add(line, where, f"{dtype!r} is not one of {', '.join(FLOAT_DTYPES)}")
            continue
        r = _Reader(tdef, where, line, problems, _TOL_KEYS)
        atol = r.get("atol", float)
        rtol = r.get("rtol", float)
        if atol is not None and rtol is not None:
            if not (math.isfinite(atol) and math.isfinite(rtol)) or atol < 0 or rtol < 0:
                problems.add(line, where, "tolerances must be finite numbers >= 0")
            out[dtype] = Tolerance(float(atol), float(rtol))
    return out


def _parse_invariants(top: _Reader, problems: _Problems, fn_names: set[str]) -> tuple[Invariant, ...]:
    from grader.invariant_kinds import KINDS

    raw = top.get("invariants", list, required=False, default=[]) or []
    out = []
    for i, idef in enumerate(raw):
        line = _line_of(raw, i, top.line_of("invariants"))
        where = f"invariants[{i}]"
        r = _Reader(idef, where, line, problems, _INV_KEYS)
        kind = r.get("kind", str) or ""
        if kind and not kind.startswith("py:") and kind not in KINDS:
            problems.add(r.line_of("kind"), f"{where}.kind", f"unknown invariant {kind!r}; known: {', '.join(sorted(KINDS))}, or py:name")
        fn = r.get("function", str, required=False)
        if fn is not None and fn not in fn_names:
            problems.add(r.line_of("function"), f"{where}.function", f"unknown function '{fn}'")
        out.append(Invariant(kind, fn, dict(r.get("options", dict, required=False, default={}) or {})))
    return tuple(out)


def _parse_traps(top: _Reader, problems: _Problems, fn_names: set[str]) -> tuple[Trap, ...]:
    raw = top.get("traps", list) or []
    if top.has("traps") and not raw:
        problems.add(top.line_of("traps"), "traps", "list at least one trap")
    out = []
    seen: set[str] = set()
    for i, tdef in enumerate(raw):
        line = _line_of(raw, i, top.line_of("traps"))
        where = f"traps[{i}]"
        r = _Reader(tdef, where, line, problems, _TRAP_KEYS)
        tid = r.get("id", str) or ""
        if tid and not ID_RE.fullmatch(tid):
            problems.add(r.line_of("id"), f"{where}.id", "lower-case words joined by '-'")
        if tid in seen:
            problems.add(r.line_of("id"), f"{where}.id", f"duplicate trap id {tid!r}")
        seen.add(tid)
        fn = r.get("function", str) or ""
        replaces = r.get("replaces", str, required=False)
        if replaces is None:
            if len(fn_names) == 1:
                replaces = next(iter(fn_names))
            elif fn_names:
                problems.add(line, f"{where}.replaces", "this drill has several functions: say which one the trap replaces")
                replaces = ""
        elif replaces not in fn_names:
            problems.add(r.line_of("replaces"), f"{where}.replaces", f"unknown function '{replaces}'")
        match = r.get("match", str, required=False)
        if match is not None and not match.startswith("py:"):
            problems.add(r.line_of("match"), f"{where}.match", "must name a function of the reference file as 'py:name'")
        out.append(Trap(tid, r.get("message", str) or "", fn, replaces or "", r.get("why", str, required=False, default="") or "",
                        bool(r.get("memory", bool, required=False, default=False)), match))
    return tuple(out)


def _parse_quiz(top: _Reader, problems: _Problems) -> tuple[Quiz, ...]:
    from grader.answers import parse_answer

    raw = top.get("quiz", list) or []
    if top.has("quiz") and len(raw) < 2:
        problems.add(top.line_of("quiz"), "quiz", "give at least two quick-fire questions")
    out = []
    for i, qdef in enumerate(raw):
        line = _line_of(raw, i, top.line_of("quiz"))
        where = f"quiz[{i}]"
        r = _Reader(qdef, where, line, problems, _QUIZ_KEYS)
        q = r.get("q", str) or ""
        a = r.get("a", (str, int, float)) 
        a = "" if a is None else str(a)
        choices = tuple(str(c) for c in (r.get("choices", list, required=False, default=[]) or []))
        if a:
            try:
                parse_answer(a)
            except ValueError as exc:
                problems.add(r.line_of("a"), f"{where}.a", f"the canonical answer does not parse: {exc}")
        out.append(Quiz(q, a, r.get("why", str, required=False, default="") or "", choices))
    return tuple(out)


# ---------------------------------------------------------- the catalogue


def builtin_drill_root() -> Path:
    import drills

    return Path(drills.__file__).resolve().parent


def spec_files(roots: list[Path] | None = None) -> list[Path]:
    """Every spec YAML under the roots (default: built-in drills, then DRILL_PATH)."""
    if roots is None:
        from trainer.paths import extra_drill_paths

        roots = [builtin_drill_root(), *extra_drill_paths()]
    files: list[Path] = []
    for root in roots:
        root = Path(root)
        if root.exists() and not root.is_dir():  # a spec file, or a FIFO/device parse_spec refuses by name
            files.append(root)
            continue
        files.extend(sorted(p for p in root.glob("*/*.yaml")))
        files.extend(sorted(p for p in root.glob("*.yaml")))
    return files


def load_catalogue(roots: list[Path] | None = None, *, strict: bool = False) -> "Catalogue":
    """Load every spec. Broken files are collected in `errors` and, grouped by file, in
    `broken` (or raised when strict); a broken file never stops the others from loading."""
    specs: dict[str, Spec] = {}
    errors: list[str] = []
    broken: dict[str, list[str]] = {}
    for path in spec_files(roots):
        try:
            spec = parse_spec(path)
        except SpecError as exc:
            problems = exc.problems
        except Exception as exc:  # noqa: BLE001 - one hostile file must not break the catalogue
            problems = [f"{path}:0: (file): cannot be checked ({type(exc).__name__})"]
        else:
            if spec.id not in specs:
                specs[spec.id] = spec
                continue
            problems = [f"{path}:1: id: {spec.id!r} is already defined by {specs[spec.id].path}"]
        errors.extend(problems)
        broken[str(path)] = list(problems)
    if strict and errors:
        raise SpecError(errors)
    ordered = dict(sorted(specs.items(), key=lambda kv: (kv[1].number or 999, str(kv[1].path))))
    return Catalogue(ordered, errors, broken)


@dataclass
class Catalogue:
    specs: dict[str, Spec]
    errors: list[str]
    broken: dict[str, list[str]] = field(default_factory=dict)  # file -> its problems

    def warnings(self) -> list[str]:
        """One line per broken spec file: its first problem, and how many more there are."""
        out = []
        for path, problems in self.broken.items():
            more = f" (and {len(problems) - 1} more; `drill validate {path}` lists them)" if len(problems) > 1 else ""
            out.append(f"skipped a broken spec: {problems[0]}{more}")
        return out

    def get(self, drill_id: str) -> Spec:
        if drill_id not in self.specs:
            raise UnknownDrill(unknown_drill_message(drill_id, self.specs))
        return self.specs[drill_id]


def unknown_drill_message(drill_id: str, known: Any) -> str:
    """The one message for a drill id the catalogue lacks, everywhere: with the closest
    ids when there are any, else a pointer to `drill list`."""
    import difflib

    close = difflib.get_close_matches(str(drill_id), list(known), n=3)
    hint = f"did you mean {', '.join(close)}?" if close else "`drill list` shows every id"
    return f"unknown drill id {str(drill_id)!r}; {hint}"


class UnknownDrill(LookupError):
    pass
