"""What a grading run says: the one verdict model (docs/CLI.md), torch-free.

Every screen and every store path reads a `Report`: `drill check` builds
one in-process, the worker sends `to_dict(wire=True)` and the client rebuilds
it with `Report.from_dict`, so nothing downstream re-derives a verdict from
a dict. `Report.shown_case` is the one choice of the case to show first.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class Verdict(str, Enum):
    """A case's or a run's verdict, most severe first (docs/CLI.md). A `str`, so JSON,
    SQL and comparisons with plain strings ("pass") keep working."""

    INTERNAL = "internal"
    BANNED = "banned"
    MISSING = "missing"
    MEMORY = "memory"
    TIMEOUT = "timeout"
    OUTPUT = "output"
    ERROR = "error"
    WRONG = "wrong"
    PASS = "pass"  # noqa: S105 - a verdict, not a password

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    @property
    def severity(self) -> int:
        """0 is the most severe (internal); pass is the least."""
        return _ORDER.index(self)

    @property
    def label(self) -> str:
        return self.value.upper()

    @property
    def counts_against(self) -> bool:
        """Failed by the person (internal is the grader's own fault)."""
        return self not in (Verdict.PASS, Verdict.INTERNAL)

    @classmethod
    def of(cls, value: object) -> Verdict:
        """A verdict from untrusted text; anything unknown is `internal`."""
        try:
            return cls(str(value))
        except ValueError:
            return cls.INTERNAL


_ORDER = tuple(Verdict)
SEVERITY = tuple(v.value for v in _ORDER)
VERDICTS = frozenset(SEVERITY)


def worst(verdicts: list[str]) -> Verdict:
    if not verdicts:
        return Verdict.INTERNAL
    return min((Verdict.of(v) for v in verdicts), key=lambda v: v.severity)


class CaseKind(str, Enum):
    """What a result is about (docs/CLI.md, `"kind"` on each case): one of the spec's real
    cases, the fake-CUDA device case, the memory-at-scale check, or the run as a whole
    (a ban, a broken channel, threads still running), or the gradient case. The real cases and
    the run lead: the device, scale and gradient checks are second lessons (`decide`)."""

    CASE = "case"
    DEVICE = "device"
    SCALE = "scale"
    GRADIENT = "gradient"  # the input gradients against the reference's (grader.judge.gradient)
    RUN = "run"

    def __str__(self) -> str:
        return self.value

    @property
    def leads(self) -> bool:
        """A real case or the run as a whole: decides the verdict whenever one of them fails."""
        return self in (CaseKind.CASE, CaseKind.RUN)

    @property
    def is_check(self) -> bool:
        """The device case, the memory-at-scale check (grader.fake.scale) or the gradient case."""
        return self in (CaseKind.DEVICE, CaseKind.SCALE, CaseKind.GRADIENT)

    @classmethod
    def of(cls, value: object) -> CaseKind:
        """A kind from untrusted text; anything unknown is a real case."""
        try:
            return cls(str(value))
        except ValueError:
            return cls.CASE


def leading(results: list[CaseResult]) -> list[CaseResult]:
    """The results that decide: the failing real cases and run-level entries when there are
    any, else every failing result (the device and scale checks), else []."""
    failing = [r for r in results if r.verdict != Verdict.PASS]
    return [r for r in failing if r.kind.leads] or failing


def decide(results: list[CaseResult]) -> Verdict:
    """The run's verdict (docs/CLI.md): the most severe among the real cases and the run
    whenever any of them fails; the device and scale checks only when all of those pass."""
    if not results:
        return Verdict.INTERNAL
    lead = leading(results)
    return worst([r.verdict for r in lead]) if lead else Verdict.PASS


@dataclass
class TrapMatch:
    id: str
    message: str
    why: str = ""
    explains: tuple[str, ...] = ()  # the failing cases the trap explains
    others: tuple[tuple[str, str], ...] = ()  # (case, reason): failing cases that fail for a separate reason

    @property
    def note(self) -> str:
        """When some failing cases fail for another reason: which, and why (empty otherwise)."""
        if not self.others:
            return ""
        failing = len(set(self.explains) | {case for case, _ in self.others})
        groups: dict[tuple[bool, str], list[str]] = {}
        for case, reason in self.others:  # "a, b and c also fail for another reason: dtype ..."
            groups.setdefault((case in self.explains, reason), []).append(case)
        parts = []
        for (also, reason), cases in sorted(groups.items()):
            names = cases[0] if len(cases) == 1 else ", ".join(cases[:-1]) + " and " + cases[-1]
            verb = "fails" if len(cases) == 1 else "fail"
            parts.append(f"{names} {'also ' if also else ''}{verb} for another reason: {reason}")
        return f"matches {self.id} on {len(self.explains)} of {failing} failing cases; " + "; ".join(parts)

    def to_dict(self, wire: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "message": self.message, "explains": list(self.explains)}
        if self.others:
            out["others"] = [{"case": case, "reason": reason} for case, reason in self.others]
            out["note"] = self.note
        if wire:
            out["why"] = self.why
        return out

    @classmethod
    def from_dict(cls, data: Any) -> TrapMatch | None:
        if not isinstance(data, dict) or not data.get("id"):
            return None
        explains = data.get("explains")
        others = data.get("others")
        return cls(str(data["id"]), str(data.get("message") or ""), str(data.get("why") or ""),
                   explains=tuple(str(c) for c in explains) if isinstance(explains, list) else (),
                   others=tuple((str(o.get("case", "")), str(o.get("reason", ""))) for o in others
                                if isinstance(o, dict)) if isinstance(others, list) else ())


@dataclass(frozen=True)
class PartialMatch:
    """A trap whose mistake shows on most failing cases but not all (grader.judge.attribution.
    partial_trap): reported as partial, never named as the cause, since something else fails too."""

    id: str
    message: str
    why: str = ""
    explains: tuple[str, ...] = ()  # the failing cases that fail the trap's way
    unexplained: tuple[str, ...] = ()  # the failing cases that fail another way

    @property
    def note(self) -> str:
        """'matches no-clip on 8 of 9 failing cases; integer-wh fails another way, which no-clip does not explain'."""
        n, total = len(self.explains), len(self.explains) + len(self.unexplained)
        cases = list(self.unexplained)
        if not cases:  # a report from elsewhere (from_dict) may hold none
            return f"matches {self.id} on {n} of {total} failing cases"
        shown = cases if len(cases) <= 4 else [*cases[:3], f"{len(cases) - 3} more"]
        names = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]
        verb = "fails" if len(cases) == 1 else "fail"
        return (f"matches {self.id} on {n} of {total} failing cases; {names} {verb} another way, which "
                f"{self.id} does not explain")

    def to_dict(self, wire: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "message": self.message, "explains": list(self.explains),
                               "unexplained": list(self.unexplained), "note": self.note}
        if wire:
            out["why"] = self.why
        return out

    @classmethod
    def from_dict(cls, data: Any) -> PartialMatch | None:
        if not isinstance(data, dict) or not data.get("id"):
            return None
        explains, unexplained = data.get("explains"), data.get("unexplained")
        return cls(str(data["id"]), str(data.get("message") or ""), str(data.get("why") or ""),
                   explains=tuple(str(c) for c in explains) if isinstance(explains, list) else (),
                   unexplained=tuple(str(c) for c in unexplained) if isinstance(unexplained, list) else ())


@dataclass
class CaseResult:
    name: str
    function: str
    verdict: str
    message: str = ""
    dims: dict[str, int] = field(default_factory=dict)
    expected_shape: list[int] | None = None
    got_shape: list[int] | None = None
    dtype: str = ""
    trap: str | None = None
    line: int | None = None
    inputs: str = ""  # the inputs, for a case whose arguments are not tensors (shapes, ints)
    id: str = ""  # the spec case's id, "name@1a2b3c4d" (grader.spec.case_id); "" for the other kinds
    kind: CaseKind = CaseKind.CASE
    # a shape verdict's expected names and message prefix, so the engine can name the
    # axes once every case is in (grader.engine.confirm_axis_names); not serialised
    shape_names: tuple[str, ...] | None = field(default=None, repr=False, compare=False)
    shape_prefix: str = field(default="", repr=False, compare=False)
    # a scale case's growth exponent per dimension (grader.fake.growth), for the memory-trap rule; not serialised
    growth: dict[str, float] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.verdict = Verdict.of(self.verdict)
        self.kind = CaseKind.of(self.kind)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "kind": str(self.kind),
            "function": self.function,
            "verdict": str(self.verdict),
            "message": self.message,
            "dims": dict(self.dims),
            "expected_shape": self.expected_shape,
            "got_shape": self.got_shape,
        }
        if self.dtype:
            out["dtype"] = self.dtype
        if self.trap:
            out["trap"] = self.trap
        if self.line is not None:
            out["line"] = self.line
        if self.inputs:
            out["inputs"] = self.inputs
        if self.id:
            out["id"] = self.id
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CaseResult:
        raw_dims = data.get("dims")
        dims = raw_dims if isinstance(raw_dims, dict) else {}
        line = data.get("line")
        return cls(
            name=str(data.get("name", "")), function=str(data.get("function", "")),
            verdict=Verdict.of(data.get("verdict")), message=str(data.get("message") or ""),
            dims={str(k): v for k, v in dims.items()},
            expected_shape=_int_list(data.get("expected_shape")), got_shape=_int_list(data.get("got_shape")),
            dtype=str(data.get("dtype") or ""), trap=str(data["trap"]) if data.get("trap") else None,
            line=line if isinstance(line, int) and not isinstance(line, bool) else None,
            inputs=str(data.get("inputs") or ""), id=str(data.get("id") or ""),
            kind=CaseKind.of(data.get("kind")),
        )


@dataclass
class Smallest:
    """The smallest sizes found that still fail a case the same way (grader.judge.smallest):
    `free` the dimensions that did not matter, `passes` the sizes of size 1 at which it passed
    ({dim: {every size at that point}}), `complete` False when the search ran out of time, `unbuilt`
    the sizes at which the drill's builders or oracle could not build the case (they raised, or did
    not finish within their deadline: grader.cases.resize), left out of the search."""

    case: str
    function: str
    sizes: dict[str, int]
    free: list[str] = field(default_factory=list)
    passes: dict[str, dict[str, int]] = field(default_factory=dict)
    complete: bool = True
    seconds: float = 0.0
    unbuilt: list[dict[str, int]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"case": self.case, "function": self.function, "sizes": dict(self.sizes), "free": list(self.free),
                "passes": {k: dict(v) for k, v in self.passes.items()}, "complete": self.complete,
                "seconds": round(self.seconds, 3), "unbuilt": [dict(u) for u in self.unbuilt]}

    @classmethod
    def from_dict(cls, data: Any) -> Smallest | None:
        if not isinstance(data, dict) or not isinstance(data.get("sizes"), dict) or not data.get("case"):
            return None
        raw_free, raw_passes = data.get("free"), data.get("passes")
        free = raw_free if isinstance(raw_free, list) else []
        passes = raw_passes if isinstance(raw_passes, dict) else {}
        raw_unbuilt = data.get("unbuilt")
        unbuilt = [u for u in raw_unbuilt if isinstance(u, dict)] if isinstance(raw_unbuilt, list) else []
        try:
            return cls(str(data["case"]), str(data.get("function") or ""),
                       {str(k): int(v) for k, v in data["sizes"].items()}, [str(f) for f in free],
                       {str(k): {str(a): int(b) for a, b in v.items()} for k, v in passes.items() if isinstance(v, dict)},
                       bool(data.get("complete", True)), float(data.get("seconds") or 0.0),
                       [{str(a): int(b) for a, b in u.items()} for u in unbuilt])
        except (TypeError, ValueError):
            return None


@dataclass
class Report:
    drill: str
    verdict: str
    cases: list[CaseResult]
    seconds: float = 0.0
    trap: TrapMatch | None = None
    seed: int | None = None
    file: str | None = None
    message: str = ""  # a run-level message (syntax error, missing function, ...)
    output: str = ""  # the start of what the solution printed
    notes: list[str] = field(default_factory=list)
    scale: dict[str, Any] | None = None  # memory at scale (grader.fake.scale): sizes, per-function peaks, ratio, text
    alone: bool = False  # the run-level message is the whole story (a syntax error): no case list
    smallest: Smallest | None = None  # the smallest failing sizes, when searched (grader.judge.smallest)
    not_checked: list[dict[str, str]] = field(default_factory=list)  # fake-tensor checks that did not run: check, function, why
    # checks that do not apply to the drill at all (no tensor argument, a spec's opt-out): check, function, why
    not_applicable: list[dict[str, str]] = field(default_factory=list)
    variant: dict[str, str] = field(default_factory=dict)  # the non-default variant choices graded ({}: the contract)
    # each shape comment checked against the example run (grader.judge.shape_comments): line, says, makes, ok
    shape_comments: list[dict[str, Any]] = field(default_factory=list)
    # no trap named, but one trap's mistake shows on most failing cases (grader.judge.attribution.partial_trap)
    partial_trap: PartialMatch | None = None

    def __post_init__(self) -> None:
        self.verdict = Verdict.of(self.verdict)

    @property
    def passed(self) -> int:
        return sum(1 for c in self.cases if c.verdict == Verdict.PASS)

    @property
    def total(self) -> int:
        return len(self.cases)

    @property
    def failing(self) -> list[CaseResult]:
        return [c for c in self.cases if c.verdict != Verdict.PASS]

    @property
    def deciding(self) -> CaseResult | None:
        """The failing case that set the verdict (`decide`): the most severe real case or
        run-level entry, a device or scale check only when those all pass. The earliest on a tie."""
        lead = leading(self.cases)
        return min(lead, key=lambda c: Verdict.of(c.verdict).severity) if lead else None

    @property
    def shown_case(self) -> CaseResult | None:
        """The one case every screen shows first: with a named trap, the most severe case
        it explains among the leading ones (a device mix is told apart, on its own case);
        otherwise the case that decided the verdict."""
        lead = leading(self.cases)
        if not lead:
            return None
        if self.trap is not None:
            lead = [c for c in lead if c.trap == self.trap.id] or lead
        return min(lead, key=lambda c: Verdict.of(c.verdict).severity)

    first_failure = shown_case

    @property
    def shrink_target(self) -> CaseResult | None:
        """The case the smallest-failing-case search shrinks (grader.judge.smallest): the shown
        case when it is a real case failed as wrong or error (sizes cannot explain a ban, a
        timeout or memory); else None."""
        shown = self.shown_case
        if self.alone or shown is None or shown.kind != CaseKind.CASE:
            return None
        return shown if Verdict.of(shown.verdict) in (Verdict.WRONG, Verdict.ERROR) else None

    @property
    def lessons(self) -> list[CaseResult]:
        """The failing device and scale checks when a real case also fails: told after the
        real failure, never in its place (docs/CLI.md)."""
        lead = leading(self.cases)
        return [c for c in self.failing if c.kind.is_check and all(c is not r for r in lead)]

    def to_dict(self, wire: bool = False) -> dict[str, Any]:
        """The `check --json` object of docs/CLI.md; `wire=True` adds what only the renderers need
        (the trap's why, what the solution printed) for the worker's answer."""
        out: dict[str, Any] = {}
        if self.file is not None:
            out["file"] = self.file
        out.update({
            "drill": self.drill,
            "verdict": str(self.verdict),
            "passed": self.passed,
            "total": self.total,
            "seconds": round(self.seconds, 3),
            "cases": [c.to_dict() for c in self.cases],
            "trap": self.trap.to_dict(wire) if self.trap else None,
            "seed": self.seed,
            "variant": dict(self.variant),
        })
        if self.message:
            out["message"] = self.message
        if self.notes:
            out["notes"] = list(self.notes)
        if self.scale is not None:
            out["scale"] = dict(self.scale)
        if self.smallest is not None:
            out["smallest"] = self.smallest.to_dict()
        if self.not_checked:
            out["not_checked"] = [dict(n) for n in self.not_checked]
        if self.not_applicable:
            out["not_applicable"] = [dict(n) for n in self.not_applicable]
        out["shape_comments"] = [dict(c) for c in self.shape_comments]
        if self.partial_trap is not None:
            out["partial_trap"] = self.partial_trap.to_dict(wire)
        if wire:
            out["output"] = self.output
            out["alone"] = self.alone
        return out

    @classmethod
    def from_dict(cls, data: Any) -> Report:
        """The inverse of to_dict (either form). Anything malformed is an `internal` report."""
        if not isinstance(data, dict):
            return internal_report("", None, "the grader sent a report that is not an object")
        raw_cases = data.get("cases")
        cases = raw_cases if isinstance(raw_cases, list) else []
        seed = data.get("seed")
        try:
            seconds = float(data.get("seconds") or 0.0)
        except (TypeError, ValueError):
            seconds = 0.0
        raw_notes = data.get("notes")
        notes = raw_notes if isinstance(raw_notes, list) else []
        return cls(
            drill=str(data.get("drill") or ""), verdict=Verdict.of(data.get("verdict")),
            cases=[CaseResult.from_dict(c) for c in cases if isinstance(c, dict)], seconds=seconds,
            trap=TrapMatch.from_dict(data.get("trap")),
            seed=seed if isinstance(seed, int) and not isinstance(seed, bool) else None,
            file=str(data["file"]) if data.get("file") is not None else None,
            message=str(data.get("message") or ""), output=str(data.get("output") or ""),
            notes=[str(n) for n in notes], scale=data.get("scale") if isinstance(data.get("scale"), dict) else None,
            alone=bool(data.get("alone")), smallest=Smallest.from_dict(data.get("smallest")),
            not_checked=_entries(data.get("not_checked")), not_applicable=_entries(data.get("not_applicable")),
            variant=_variant(data.get("variant")),
            shape_comments=[c for c in data.get("shape_comments") or [] if isinstance(c, dict)]
            if isinstance(data.get("shape_comments"), list) else [],
            partial_trap=PartialMatch.from_dict(data.get("partial_trap")),
        )


def _entries(value: Any) -> list[dict[str, str]]:
    """A report's `not_checked` or `not_applicable` as sent: objects of text, anything else dropped."""
    if not isinstance(value, list):
        return []
    return [{str(k): str(v) for k, v in n.items()} for n in value if isinstance(n, dict)]


def internal_report(drill: str, seed: int | None, message: str, seconds: float = 0.0) -> Report:
    """Our own fault: never counted against the person."""
    return Report(drill, Verdict.INTERNAL, [], seconds, seed=seed, message=message)


def _variant(value: Any) -> dict[str, str]:
    """A report's variant choices as sent: text to text, anything else dropped."""
    if not isinstance(value, dict):
        return {}
    return {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, str)}


def _int_list(value: Any) -> list[int] | None:
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return None
    return list(value)


# ---------------------------------------------------------------- words every message uses


def bytes_text(n: float) -> str:
    """A byte count in binary units, the one way every message writes one: `37.3 GiB`,
    `256 MiB`, `512 bytes` (one decimal below 100 of a unit)."""
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            value = n / size
            return f"{value:.1f} {unit}" if value < 100 else f"{value:.0f} {unit}"
    return f"{int(n)} bytes"


MAX_NAME = 100  # a class name longer than this is shortened for display (grader.sandbox.channel allows 200)


def class_name(cls: type) -> str:
    """A class's own name (never a metaclass's property), shortened past MAX_NAME characters."""
    try:
        name = type.__dict__["__name__"].__get__(cls)
    except BaseException:  # noqa: BLE001 - not a real class
        return "?"
    return name if len(name) <= MAX_NAME else name[:MAX_NAME - 3] + "..."


def safe_message(exc: BaseException) -> str:
    """str(exc), or what went wrong reading it: a solution's own exception whose __str__
    raises is a realistic bug, described, never a crash of the run."""
    try:
        message = str(exc)
        if not isinstance(message, str):
            raise TypeError("__str__ returned a non-string")
        message = str.__getitem__(message, slice(0, 10_000))  # a plain str, whatever subclass came back
    except BaseException as inner:  # noqa: BLE001 - whatever __str__ does, it is data
        try:
            why = f"{class_name(type(inner))}: {str(inner)[:200]}"
        except BaseException:  # noqa: BLE001
            why = class_name(type(inner))
        return f"(its message could not be read: {why})"
    return message if len(message) <= 600 else message[:600] + " ..."


def exception_where(exc: dict) -> str:
    """Where a solution's exception (grader.sandbox.describe_exception's dict) was raised:
    `line 3 (x.sum(0))`, or "" when it does not say."""
    line = exc.get("line")
    if not line:
        return ""
    text = exc.get("text") or ""
    return f"line {line}" + (f" ({text})" if text else "")


def exception_text(exc: dict, at_load: bool = False) -> str:
    """A solution's exception in one line, the one way every message writes one:
    `IndexError: index 5 is out of bounds (line 3: x[5])`. `at_load`: raised while the
    file loaded, so a SyntaxError says its line once and anything else says so."""
    import re

    etype = exc.get("type", "Exception")
    msg = str(exc.get("message", "")).strip()
    first = msg.splitlines()[0] if msg else ""
    text = f"{etype}: {first}" if first else str(etype)
    line = exc.get("line")
    if line:
        src = exc.get("text") or ""
        text += f" (line {line}" + (f": {src}" if src else "") + ")"
    if at_load and etype in ("SyntaxError", "IndentationError", "TabError"):
        first = re.sub(r"\s*\([^()]*, line \d+\)$", "", first)  # the file and line are said once, below
        text = f"{etype}: {first}" if first else str(etype)
        if line:
            src = exc.get("text") or ""
            text += f" at line {line}" + (f": {src}" if src else "")
    elif at_load:
        text = "while loading the file: " + text
    return text
