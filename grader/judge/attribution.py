"""Trap attribution: name a known mistake only when it explains the whole failure.

A trap is a function in the drill's reference file that makes one classic
mistake. It is named for a failed submission only when, on every case of the
function it replaces, the submission behaves like the trap:

1. on every case the trap fails, the submission fails too, with the trap's
   result: the same shape, dtype and values (within four times the case's
   tolerance), or, where the trap raises, the same exception type with the
   same message once numbers and quoted names are stripped;
2. on every case where the trap agrees with the oracle, the submission passes;
3. every other failing case is one the trap accounts for: cases of other
   functions must pass, and heavy cases (never run for traps, they are too
   big) may fail only as `wrong`, or as the same normalised exception the
   trap raised elsewhere. The device case (fake CUDA inputs) may be `wrong`
   only where the small cases were. A device mix there is a lesson of its
   own, told on the device case: it neither names nor blocks a trap. The
   memory-at-scale check names no trap, with one exception: a trap marked
   `memory: true`, whose mistake shows as memory on the heavy cases and at
   scale.

A trap also needs evidence: at least one failing case it accounts for. There the submission
   must run out of memory too, and it must do so somewhere; on small cases rules 1 and 2 apply as usual.

A trap with `match: py:name` adds its own test to rule 1's value comparison
(for mistakes no single output pins down, such as the size of rounding
noise), and lets the submission pass a case the trap fails: where the mistake
shows depends on the rounding of the submission's own arithmetic. When no trap satisfies every rule, none is named:
the case messages teach instead. Several traps that all satisfy every rule
are the same mistake seen two ways; the first in the spec wins.

Trap outputs are computed once per prepared drill and cached on it (the
sandbox child drops them with the expected outputs).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import torch

from grader.cases.prepare import Call, ExpectedRaise, Prepared, fresh, with_kwargs
from grader.judge.compare import compare_call, outputs_close
from grader.judge.invariants import first_problem
from grader.report import CaseResult, TrapMatch
from grader.spec import Trap
from grader.transport import SeqValue

_FAILED = ("wrong", "error", "memory")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`")
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


@dataclass(frozen=True)
class TrapResult:
    """What a trap did on one case: returned `value`, or raised `exc_type` with `message`."""

    value: Any = None
    exc_type: str | None = None
    exc_mro: tuple[str, ...] = ()
    message: str = ""
    passes: bool = False  # the trap's own result would pass this case

    @property
    def raised(self) -> bool:
        return self.exc_type is not None


def normalise_message(message: str) -> str:
    """An exception message with the parts that vary between cases stripped:
    quoted names and numbers (sizes, indices, values). Only the first line counts."""
    first = (message or "").strip().splitlines()[0] if (message or "").strip() else ""
    return " ".join(_NUMBER.sub("#", _QUOTED.sub("Q", first)).lower().split())


def match_traps(prep: Prepared, outcome: Any, results: list[CaseResult]) -> TrapMatch | None:
    """The first trap of the drill that explains every failing case (the rules above), or None."""
    spec = prep.spec
    if not spec.traps or all(r.verdict == "pass" for r in results):
        return None
    if any(r.verdict not in _FAILED and r.verdict != "pass" for r in results):
        return None  # banned, missing, timeout, output, internal: no trap is about those
    for trap in spec.traps:
        if explains(prep, trap, outcome, results):
            for res in results:
                if res.verdict != "pass" and not is_device_mix(res):
                    res.trap = trap.id
            return TrapMatch(trap.id, trap.message, trap.why)
    return None


def is_device_mix(res: CaseResult) -> bool:
    """The device case failed because the solution mixed CPU tensors with GPU inputs
    (grader.fake.scale judges every other device failure as `wrong`, or leaves a note)."""
    return res.name == "device" and res.verdict == "error"


@dataclass
class _Tally:
    """What `explains` gathers on its way through the results, for the checks at the end."""

    raised_here: set[str] = field(default_factory=set)  # the exceptions the trap's own failures raise
    heavy_failures: list[tuple[Call, CaseResult]] = field(default_factory=list)
    extra_failures: list[CaseResult] = field(default_factory=list)  # the device case, wrong
    memory_seen: bool = False
    evidence: bool = False  # a failure the trap accounts for (without one, the trap explains nothing)


def explains(prep: Prepared, trap: Trap, outcome: Any, results: list[CaseResult]) -> bool:
    """Does `trap` explain this whole failure (module docstring, rules 1-3)?"""
    tally = _Tally()
    if not _extra_results_fit(trap, results[len(prep.calls):], tally):
        return False
    if not all(_case_fits(prep, trap, outcome, call, res, tally) for call, res in zip(prep.calls, results)):
        return False
    return _tally_fits(prep, trap, outcome, results, tally)


def _extra_results_fit(trap: Trap, extra: list[CaseResult], tally: _Tally) -> bool:
    """The device case and the memory-at-scale check (grader.fake.scale), after the cases."""
    for res in extra:
        if res.verdict == "pass" or is_device_mix(res):
            continue  # a device mix is its own lesson, told on the device case: it neither names nor blocks a trap
        if res.function != trap.replaces:
            return False
        if trap.memory and res.name == "scale" and res.verdict == "memory":
            tally.memory_seen = tally.evidence = True
            continue
        if res.name == "device" and res.verdict == "wrong":
            tally.extra_failures.append(res)  # the same wrong shape or dtype shows on fake tensors too
            continue
        return False
    return True


def _case_fits(prep: Prepared, trap: Trap, outcome: Any, call: Call, res: CaseResult, tally: _Tally) -> bool:
    """One case's result as the trap would have it (False ends the attribution)."""
    if call.function.name != trap.replaces:
        return res.verdict == "pass"
    if call.case.heavy:
        if trap.memory:
            if res.verdict != "memory":
                return False
            tally.memory_seen = tally.evidence = True
        elif res.verdict != "pass":
            tally.heavy_failures.append((call, res))
        return True
    if res.verdict == "memory":
        return False
    expected = trap_result(prep, trap, call)
    if expected is None:
        return False
    if expected.passes:
        return res.verdict == "pass"
    if res.verdict == "pass":
        # a noisy mistake (rounding) need not show on every case the trap's does; otherwise
        # the trap's mistake shows here and the solution does not make it
        return bool(trap.match)
    got = outcome.calls.get(call.index)
    if got is None or not _behaves_like(prep, trap, call, got, expected):
        return False
    tally.evidence = True
    if expected.raised:
        tally.raised_here.add(f"{expected.exc_type}: {normalise_message(expected.message)}")
    return True


def _tally_fits(prep: Prepared, trap: Trap, outcome: Any, results: list[CaseResult], tally: _Tally) -> bool:
    """The checks on the whole: memory shown, evidence found, and the other failures the trap's."""
    if trap.memory and not tally.memory_seen:
        return False  # a memory trap is about the memory: without a memory failure it explains nothing
    if not tally.evidence:
        return False
    for res in tally.extra_failures:
        if not any(r.verdict == "wrong" for c, r in zip(prep.calls, results) if c.function.name == trap.replaces):
            return False  # wrong at the device case's sizes only: not the trap's mistake
    for call, res in tally.heavy_failures:
        got = outcome.calls.get(call.index)
        if res.verdict == "wrong" and got is not None and got.status == "ok":
            continue
        if got is not None and got.status == "raised" and got.exc and (
                f"{got.exc.get('type')}: {normalise_message(str(got.exc.get('message', '')))}" in tally.raised_here):
            continue
        return False
    return True


def _behaves_like(prep: Prepared, trap: Trap, call: Call, got: Any, expected: TrapResult) -> bool:
    """Rule 1 on one case the trap fails: the solution's result is the trap's result."""
    if expected.raised:
        if got.status != "raised" or not got.exc or str(got.exc.get("type")) != expected.exc_type:
            return False
        if any(t in expected.exc_mro for t in call.function.raises):
            return True  # the contract's own exception: its message is free text
        return normalise_message(str(got.exc.get("message", ""))) == normalise_message(expected.message)
    if got.status != "ok":
        return False
    if same_dtypes(got.value, expected.value) and outputs_close(got.value, expected.value, call,
                                                                prep.spec.tolerance):
        return True
    if trap.match:
        check = getattr(prep.reference, trap.match[3:], None)
        try:
            return check is not None and bool(check(call, got.value, expected.value))
        except Exception:  # noqa: BLE001 - an odd output simply does not match
            return False
    return False


def same_dtypes(a: Any, b: Any) -> bool:
    """Tensors in the same places with the same dtypes (Python values are compared elsewhere)."""
    a = getattr(a, "items", a)
    b = getattr(b, "items", b)
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
            return a.dtype == b.dtype
        return True  # a tensor against a number: outputs_close decides (0-d only)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(same_dtypes(x, y) for x, y in zip(a, b))
    return True


def trap_result(prep: Prepared, trap: Trap, call: Call) -> TrapResult | None:
    """The trap's result on this case, computed once per prepared drill."""
    cache: dict[tuple[str, int], TrapResult | None] = prep.trap_results
    key = (trap.id, call.index)
    if key not in cache:
        cache[key] = _run_trap(prep, trap, call)
    return cache[key]


def _run_trap(prep: Prepared, trap: Trap, call: Call) -> TrapResult | None:
    func = getattr(prep.reference, trap.function, None)
    if func is None:
        return None
    func = with_kwargs(func, prep.spec.call_kwargs)  # the trap under the drill's variant
    try:
        with torch.no_grad():
            out = func(*fresh(call.args))
    except Exception as exc:  # noqa: BLE001 - traps may raise on purpose
        mro = tuple(c.__name__ for c in type(exc).__mro__)
        passes = isinstance(call.expected, ExpectedRaise) and any(t in mro for t in call.expected.types)
        return TrapResult(exc_type=type(exc).__name__, exc_mro=mro, message=str(exc), passes=passes)
    value = decoded_form(out)
    return TrapResult(value=value, passes=_passes(prep, call, value))


def _passes(prep: Prepared, call: Call, value: Any) -> bool:
    """Would this result pass the case (the same comparison a submission gets)?"""
    if isinstance(call.expected, ExpectedRaise):
        return False
    try:
        if call.function.checker:
            check = getattr(prep.reference, call.function.checker[3:])
            return not check(call, value)
        if compare_call(call, value, prep.spec.tolerance).verdict != "pass":
            return False
        return first_problem(prep, call, value) is None
    except Exception:  # noqa: BLE001 - a trap output the comparison cannot read does not pass
        return False


def decoded_form(value: Any) -> Any:
    """A trap's output in the form the sandbox decodes a solution's into
    (lists as SeqValue, torch.Size as a tuple of ints)."""
    if isinstance(value, torch.Tensor):
        return value.detach().as_subclass(torch.Tensor)
    if isinstance(value, torch.Size):
        return tuple(int(v) for v in value)
    if isinstance(value, list):
        return SeqValue(tuple(decoded_form(v) for v in value))
    if isinstance(value, tuple):
        return tuple(decoded_form(v) for v in value)
    return value
