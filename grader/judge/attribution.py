"""Trap attribution: name a known mistake only when it explains the whole failure.

A trap is a function in the drill's reference file that makes one classic
mistake. It is named for a failed submission only when, on every case of the
function it replaces, the submission behaves like the trap:

1. on every case the trap fails, the submission fails too, the trap's way
   (grader.judge.signature: the trap's shape, a dtype the contract accepts,
   and the trap's values or the trap's wrong positions with its values
   there), or, where the trap raises, the same exception type with the
   same message once numbers and quoted names are stripped (an index past
   an axis matches as IndexError or RuntimeError; reading past it without
   raising counts only beside a case that shows the trap's values);
2. on every case where the trap agrees with the oracle, the submission passes;
3. every other failing case is one the trap accounts for: cases of other
   functions must pass, and heavy cases (never run for traps, they are too
   big) may fail only as `wrong`, or as the same normalised exception the
   trap raised elsewhere. The device case (fake CUDA inputs) may be `wrong`
   only where the small cases were. A device mix there is a lesson of its
   own, told on the device case: it neither names nor blocks a trap. The
   memory-at-scale check names no trap, with one exception: a trap marked
   `memory: true`, whose mistake shows as memory on the heavy cases and at
   scale, where the solution's peak must grow as the trap's does with every
   dimension (grader.fake.growth).

A trap also needs evidence: at least one failing case it accounts for. There the submission
   must run out of memory too, and it must do so somewhere; on small cases rules 1 and 2 apply as usual.

A case may also fail for a separate, visible reason (grader.judge.signature.dtype_slip:
a dtype the contract refuses, the values otherwise the trap's or the oracle's): the
trap is still named, and TrapMatch.others says which case and why.

A trap with `match: py:name` adds its own test to rule 1's value comparison
(for mistakes no single output pins down, such as the size of rounding
noise), and lets the submission pass a case the trap fails: where the mistake
shows depends on the rounding of the submission's own arithmetic; the submission
must still have the trap's shapes. When no trap satisfies every rule, none is named:
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

from grader.cases.prepare import Call, ExpectedRaise, Prepared, fresh, helper, with_kwargs
from grader.judge.compare import compare_call
from grader.judge.invariants import first_problem
from grader.judge.signature import dtype_slip, has_signature, same_shapes, shows_finite_values
from grader.report import CaseKind, CaseResult, PartialMatch, TrapMatch
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
    traps = [t for t in spec.traps if not t.gradient]  # a backward trap is named on the gradient case alone
    for trap, nonfinite in [(t, False) for t in traps] + [(t, True) for t in traps]:
        tally = _Tally(nonfinite=nonfinite)  # NaN read as a trap's other fill only when no trap matches without it
        if explains(prep, trap, outcome, results, tally):
            other_only = {name for name, _ in tally.others} - tally.shown
            for res in results:
                if res.verdict != "pass" and not is_device_mix(res) and res.name not in other_only:
                    res.trap = trap.id
            explained = [r.name for r in results if r.trap == trap.id]
            return TrapMatch(trap.id, trap.message, trap.why, explains=tuple(dict.fromkeys(explained)),
                             others=tuple(tally.others))
    return None


def partial_trap(prep: Prepared, outcome: Any, results: list[CaseResult]) -> PartialMatch | None:
    """When no trap is named: the trap whose mistake shows, its way, on most but not all of the
    failing cases, with the others failing another way (a second, independent mistake in the same
    code must not hide the first). Reported as partial, never as the cause. Rules: the failure is
    about values (no banned, missing, timeout or output verdict); wherever the trap fails the
    solution fails too (a `match:` trap excepted: its mistake need not show on every case); the
    cases it accounts for (rule 1, case by case) outnumber the others, and show the trap's values
    or its exception (as for a named trap: NaN or reading past an index alone is not enough).
    The most cases first, then spec order. Memory traps and the device and scale checks are left
    out: the count is over the real cases."""
    if not spec_traps(prep) or any(r.verdict not in _FAILED and r.verdict != "pass" for r in results):
        return None
    real = list(zip(prep.calls, results))
    failing = [i for i, (_, res) in enumerate(real) if res.verdict != "pass"]
    best: tuple[int, Trap, list[int]] | None = None
    for trap in spec_traps(prep):
        explained = _partly_explained(prep, trap, outcome, real)
        if explained is None or not 0 < len(explained) < len(failing) or 2 * len(explained) <= len(failing):
            continue
        if best is None or len(explained) > best[0]:
            best = (len(explained), trap, explained)
    if best is None:
        return None
    _, trap, explained = best
    names = _labels([real[i][1] for i in failing])
    label = dict(zip(failing, names))
    return PartialMatch(trap.id, trap.message, trap.why, explains=tuple(label[i] for i in failing if i in explained),
                        unexplained=tuple(label[i] for i in failing if i not in explained))


def _labels(failing: list[CaseResult]) -> list[str]:
    """Each failing case's name, with its function where cases of several functions share it."""
    seen: dict[str, int] = {}
    for res in failing:
        seen[res.name] = seen.get(res.name, 0) + 1
    return [res.name if seen[res.name] == 1 else f"{res.name} ({res.function})" for res in failing]


def spec_traps(prep: Prepared) -> tuple[Trap, ...]:
    return tuple(t for t in prep.spec.traps if not t.memory and not t.gradient)


def _partly_explained(prep: Prepared, trap: Trap, outcome: Any, real: list[tuple[Call, CaseResult]]) -> list[int] | None:
    """The failing cases `trap` accounts for (their places in `real`), case by case; None when the
    trap's mistake is plainly absent (the solution passes a case the trap fails) or nothing shows it."""
    tally = _Tally()
    explained = []
    for i, (call, res) in enumerate(real):
        if call.function.name not in trap.functions or call.case.heavy:
            continue
        expected = trap_result(prep, trap, call)
        if expected is None:
            return None
        if expected.passes:
            continue  # a failure here is another mistake's
        if res.verdict == "pass":
            if trap.match:
                continue
            return None  # the trap's mistake shows here and the solution does not make it
        got = outcome.calls.get(call.index)
        if res.verdict == "memory" or got is None:
            continue
        if _behaves_like(prep, trap, call, got, expected, nonfinite=True):
            tally.evidence += 1
            if expected.raised or shows_finite_values(call, got.value, expected.value, prep.spec.tolerance):
                tally.values_shown += 1
            explained.append(i)
        elif _other_reason(prep, call, got, expected, res, tally):
            explained.append(i)
    return explained if tally.values_shown else None


def is_device_mix(res: CaseResult) -> bool:
    """The device case failed because the solution mixed CPU tensors with GPU inputs
    (grader.fake.scale judges every other device failure as `wrong`, or leaves a note)."""
    return res.kind == CaseKind.DEVICE and res.verdict == "error"


@dataclass
class _Tally:
    """What `explains` gathers on its way through the results, for the checks at the end."""

    nonfinite: bool = False  # NaN or inf in the trap's wrong rows read as the trap's mistake (signature.has_signature)
    raised_here: set[str] = field(default_factory=set)  # the exceptions the trap's own failures raise
    heavy_failures: list[tuple[Call, CaseResult]] = field(default_factory=list)
    extra_failures: list[CaseResult] = field(default_factory=list)  # the device case, wrong
    memory_seen: bool = False
    evidence: int = 0  # failing cases the trap accounts for (without one, the trap explains nothing)
    others: list[tuple[str, str]] = field(default_factory=list)  # (case, reason): failing for a separate reason
    shown: set[str] = field(default_factory=set)  # the cases with a separate reason where the trap's mistake shows too
    values_shown: int = 0  # cases where the solution returned the trap's values (not only its exception)
    past_index: int = 0  # cases where the trap raised an index error and the solution read past the index
    nonfinite_only: int = 0  # cases where the solution is NaN or inf in the trap's wrong rows and shows nothing else


def explains(prep: Prepared, trap: Trap, outcome: Any, results: list[CaseResult], tally: _Tally | None = None) -> bool:
    """Does `trap` explain this whole failure (module docstring, rules 1-3)?"""
    tally = _Tally() if tally is None else tally
    if not _extra_results_fit(prep, trap, results[len(prep.calls):], tally):
        return False
    if not all(_case_fits(prep, trap, outcome, call, res, tally) for call, res in zip(prep.calls, results)):
        return False
    return _tally_fits(prep, trap, outcome, results, tally)


def _extra_results_fit(prep: Prepared, trap: Trap, extra: list[CaseResult], tally: _Tally) -> bool:
    """The device case and the memory-at-scale check (grader.fake.scale), after the cases."""
    for res in extra:
        if res.verdict == "pass" or is_device_mix(res):
            continue  # a device mix is its own lesson, told on the device case: it neither names nor blocks a trap
        if res.function not in trap.functions:
            return False
        if trap.memory and res.kind == CaseKind.SCALE and res.verdict == "memory":
            if not _grows_like(prep, trap, res):
                return False  # memory of another order than the trap's mistake makes: not that mistake
            tally.memory_seen = True
            tally.evidence += 1
            continue
        if not trap.memory and res.kind == CaseKind.SCALE and res.verdict == "memory":
            continue  # memory at scale is its own lesson, told after the real cases a value trap must explain
        if res.kind == CaseKind.DEVICE and res.verdict == "wrong":
            tally.extra_failures.append(res)  # the same wrong shape or dtype shows on fake tensors too
            continue
        return False
    return True


def _grows_like(prep: Prepared, trap: Trap, res: CaseResult) -> bool:
    """A memory trap's scale failure: the solution's peak grows as the trap's does (grader.fake.growth)."""
    from grader.fake.growth import same_order

    fp = next((f for f in getattr(prep.fake, "functions", []) if f.name == res.function), None)
    theirs = fp.trap_growth.get(trap.id) if fp is not None else None
    return theirs is not None and res.growth is not None and same_order(res.growth, theirs)


def _case_fits(prep: Prepared, trap: Trap, outcome: Any, call: Call, res: CaseResult, tally: _Tally) -> bool:
    """One case's result as the trap would have it (False ends the attribution)."""
    if call.function.name not in trap.functions:
        return res.verdict == "pass"
    if call.case.heavy:
        if trap.memory:
            if res.verdict != "memory":
                return False
            tally.memory_seen = True
            tally.evidence += 1
        elif res.verdict != "pass":
            tally.heavy_failures.append((call, res))
        return True
    if res.verdict == "memory":
        return False
    expected = trap_result(prep, trap, call)
    if expected is None:
        return False
    got = outcome.calls.get(call.index)
    if expected.passes:
        return res.verdict == "pass" or _other_reason(prep, call, got, expected, res, tally)
    if res.verdict == "pass":
        # a noisy mistake (rounding) need not show on every case the trap's does; otherwise
        # the trap's mistake shows here and the solution does not make it
        return bool(trap.match)
    if got is None:
        return False
    if not _behaves_like(prep, trap, call, got, expected, tally.nonfinite):
        if expected.raised and _reads_past_the_index(call, got, expected):
            tally.past_index += 1  # counts as evidence only beside a case where the trap's values show
            return True
        return _other_reason(prep, call, got, expected, res, tally)
    tally.evidence += 1
    if expected.raised:
        tally.raised_here.add(f"{expected.exc_type}: {normalise_message(expected.message)}")
    elif shows_finite_values(call, got.value, expected.value, prep.spec.tolerance):
        tally.values_shown += 1
    else:
        tally.nonfinite_only += 1  # NaN or inf in the trap's wrong rows, no value of the trap's: not alone
    return True


def _other_reason(prep: Prepared, call: Call, got: Any, expected: TrapResult, res: CaseResult, tally: _Tally) -> bool:
    """A case that fails for a separate, visible reason (grader.judge.signature.dtype_slip):
    the trap is still named when it explains the rest, and the report says which case and why."""
    if got is None or got.status != "ok" or expected.raised or res.verdict != "wrong":
        return False
    reason = dtype_slip(call, got.value, expected.value, expected.passes, prep.spec.tolerance)
    if reason is None:
        return False
    tally.others.append((call.case.name, reason))
    if not expected.passes:
        tally.shown.add(call.case.name)
        tally.evidence += 1  # cast to the contract's dtype, the result is the trap's: the mistake shows here too
        tally.values_shown += 1
    return True


def _is_index_error(normalised: str) -> bool:
    return "out of bounds" in normalised or "out of range" in normalised


def _reads_past_the_index(call: Call, got: Any, expected: TrapResult) -> bool:
    """Where the trap's index runs past its axis it raises; the same mistake written with flat
    offsets or a wrapped index reads past it instead and returns values of the right shape."""
    if not _is_index_error(normalise_message(expected.message)) or got.status != "ok":
        return False
    return not isinstance(call.expected, ExpectedRaise) and same_shapes(call, got.value, call.expected)


def _tally_fits(prep: Prepared, trap: Trap, outcome: Any, results: list[CaseResult], tally: _Tally) -> bool:
    """The checks on the whole: memory shown, evidence found, and the other failures the trap's."""
    if trap.memory and not tally.memory_seen:
        return False  # a memory trap is about the memory: without a memory failure it explains nothing
    if not tally.evidence:
        return False
    if tally.past_index and not tally.values_shown:
        return False  # garbage where the trap raised is the trap's only beside the trap's own values
    if tally.nonfinite_only and not tally.values_shown:
        return False  # NaN where the trap is wrong is the trap's only beside the trap's own finite values
    for res in tally.extra_failures:
        if not any(r.verdict == "wrong" for c, r in zip(prep.calls, results) if c.function.name in trap.functions):
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


def _behaves_like(prep: Prepared, trap: Trap, call: Call, got: Any, expected: TrapResult, nonfinite: bool = False) -> bool:
    """Rule 1 on one case the trap fails: the solution's result is the trap's result."""
    if expected.raised:
        if got.status != "raised" or not got.exc:
            return False
        said = normalise_message(str(got.exc.get("message", "")))
        if str(got.exc.get("type")) != expected.exc_type:
            # the same index past the end, read by indexing (IndexError) or by gather (RuntimeError)
            return _is_index_error(said) and said == normalise_message(expected.message)
        if any(t in expected.exc_mro for t in call.function.raises):
            return True  # the contract's own exception: its message is free text
        return said == normalise_message(expected.message)
    if got.status != "ok":
        return False
    if trap.match and not same_shapes(call, got.value, expected.value):
        return False  # a matcher reads values; the trap's shapes are part of its mistake
    if has_signature(call, got.value, expected.value, prep.spec.tolerance, nonfinite):
        return True
    if trap.match:
        check = getattr(prep.reference, trap.match[3:], None)
        try:
            return check is not None and bool(check(call, got.value, expected.value))
        except Exception:  # noqa: BLE001 - an odd output simply does not match
            return False
    return False


def trap_result(prep: Prepared, trap: Trap, call: Call) -> TrapResult | None:
    """The trap's result on this case, computed once per prepared drill."""
    cache: dict[tuple[str, int], TrapResult | None] = prep.trap_results
    key = (trap.id, call.index)
    if key not in cache:
        cache[key] = _run_trap(prep, trap, call)
    return cache[key]


def _run_trap(prep: Prepared, trap: Trap, call: Call) -> TrapResult | None:
    func = getattr(prep.reference, trap.functions.get(call.function.name, trap.function), None)
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
            check = helper(prep.spec, prep.reference, call.function.checker)
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
