"""The spec's records: frozen dataclasses a parsed drill spec is made of, and the
closed vocabularies (topics, dtype words, Python types) they may hold.

Separate from the parser so that the grader's runtime (cases, compare,
attribution) and the trainer's display code depend on the shapes of a spec
only, never on how it is read. Torch-free: `drill list` and `drill show` use it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from grader.errors import DrillError

TOPICS = ("broadcasting", "attention", "ragged", "gather-scatter", "images-boxes", "einsum-and-rest", "losses-and-norms",
          "decoding")
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


class SpecError(DrillError):
    """One or more problems in spec files; `problems` holds one line each (a usage problem:
    the spec named or found is not a drill)."""

    exit_code = 2

    def __init__(self, problems: list[str]):
        self.problems = list(problems)
        super().__init__(self.problems)


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
    # "py:where": True where the contract fixes the output (the gradient case pulls back only there;
    # a drill whose checker accepts two forwards leaves the free positions out, grader.cases.gradient)
    gradient_where: str | None = None
    # the arguments the gradient case differentiates (default: every `float` tensor argument); a teacher's
    # logits or a box's coordinates may be inputs no gradient is asked of
    gradient_wrt: tuple[str, ...] | None = None

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
    id: str = ""  # "name@1a2b3c4d": changes when what decides the case's tensors changes (grader.spec.case_id)

    @property
    def key(self) -> str:
        """The case's identity: its id once parsed, its name for a hand-built record."""
        return self.id or self.name


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
    also: tuple[tuple[str, str], ...] = ()  # (drill function, trap function): the same mistake made there too
    gradient: bool = False  # a backward trap: right forward, a classic backward mistake (grader.judge.gradient)

    @property
    def functions(self) -> dict[str, str]:
        """Each drill function this trap stands in for -> the reference's trap function for it."""
        return {self.replaces: self.function, **dict(self.also)}


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
    max_bytes: int | None = None  # a peak above this many bytes at these sizes is `memory`, whatever its growth


@dataclass(frozen=True)
class VariantTraps:
    """What a variant value does to the drill's traps: `drop` those that do not apply under it,
    `add` those that apply only under it (a trap no value adds applies everywhere it is not
    dropped), and `messages` that flip with the convention (trap id -> message)."""

    drop: tuple[str, ...] = ()
    add: tuple[str, ...] = ()
    messages: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class VariantValue:
    """One value of a variant axis (drills/README.md, "Variants"). The default value changes nothing.

    `gen` and `args` are per function, then per argument: {function: {argument: {...}}}
    (generator options merged into the argument's; `shape`/`dtype` overrides); `returns` is per
    function, one override per return."""

    name: str
    label: str
    source: str  # the real code that uses the convention
    prompt: tuple[tuple[str, str], ...] = ()  # (from, to): fragments of the prompt replaced
    kwargs: dict[str, Any] = field(default_factory=dict)  # keyword arguments for the reference, oracle and traps
    gen: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    args: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    returns: dict[str, tuple[dict[str, Any], ...]] = field(default_factory=dict)
    traps: VariantTraps = field(default_factory=VariantTraps)
    hints: tuple[tuple[str, str], ...] = ()  # (from, to): fragments of the hints replaced
    cases: dict[str, str] = field(default_factory=dict)  # a case's name -> its name under this value


@dataclass(frozen=True)
class Axis:
    """A variant axis: its name, the default value (today's contract) and its values, in spec order."""

    name: str
    default: str
    values: dict[str, VariantValue]

    def others(self) -> list[str]:
        """The non-default values, in spec order."""
        return [v for v in self.values if v != self.default]


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
    no_gradient_case: str = ""  # why this drill has no gradient case though its outputs are differentiable, or ""
    variants: tuple[Axis, ...] = ()  # the variant axes (grader.spec.variants); empty when none
    variant: dict[str, str] = field(default_factory=dict)  # the NON-default choices this spec is under ({}: the contract)
    call_kwargs: dict[str, Any] = field(default_factory=dict)  # for the reference, oracle and traps under `variant`
    all_traps: tuple[Trap, ...] = ()  # every trap as written, those only some variant values add too (spec order)
    base: Spec | None = field(default=None, repr=False, compare=False)  # the spec as written, when under a variant

    def under(self, variant: Mapping[str, str]) -> Spec:
        """This drill under the variant (axis -> value): prompt, arguments, returns, traps and
        generator options applied (grader.spec.variant_apply.under). A UsageError names the choices
        for an unknown axis or value."""
        from grader.spec.variant_apply import under

        return under(self, variant)

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
