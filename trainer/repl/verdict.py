"""The verdict display that teaches: prompt_toolkit formatted text from a result dict.

A failure shows the case that failed with its dimension sizes, the message
(shape explained in dimension names, or the value diff), and the trap it
matches with the two-line why. A pass shows the time against the target,
when the drill comes back, the reference solution and the seed's trap.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

Fragments = list[tuple[str, str]]

SEVERITY = ("internal", "banned", "missing", "memory", "timeout", "output", "error", "wrong", "pass")
LABEL = {"pass": "PASS", "wrong": "WRONG", "error": "ERROR", "timeout": "TIMEOUT", "memory": "MEMORY",
         "output": "OUTPUT", "banned": "BANNED", "missing": "MISSING", "internal": "INTERNAL"}


@dataclass(frozen=True)
class PassInfo:
    """What only the REPL knows after a pass."""

    elapsed: float
    target: float
    due: datetime | None = None
    now: datetime | None = None
    reference: str = ""
    seed_trap: str = ""


def mmss(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60}:{seconds % 60:02d}"


def verdict_style(verdict: str) -> str:
    return {"pass": "class:pass", "internal": "class:internal"}.get(verdict, "class:fail")


def first_failure(result: dict[str, Any]) -> dict[str, Any] | None:
    bad = [c for c in result.get("cases", []) if c.get("verdict") != "pass"]
    if not bad:
        return None
    return min(bad, key=lambda c: SEVERITY.index(c.get("verdict", "error")) if c.get("verdict") in SEVERITY else 0)


def teaching_case(result: dict[str, Any]) -> dict[str, Any] | None:
    """The failing case that best shows the mistake: one the matched trap explains."""
    trap = (result.get("trap") or {}).get("id")
    for c in result.get("cases", []):
        if trap and c.get("verdict") != "pass" and c.get("trap") == trap:
            return c
    return None


def dims_text(dims: dict[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in dims.items())


def render(result: dict[str, Any], info: PassInfo | None = None) -> Fragments:
    """The full, teaching display (the REPL's output pane)."""
    verdict = str(result.get("verdict", "internal"))
    out: Fragments = []
    head = f"{LABEL.get(verdict, verdict.upper())}"
    out.append((verdict_style(verdict) + " bold", head))
    total = int(result.get("total", 0))
    passed = int(result.get("passed", 0))
    if verdict == "pass":
        out.append(("", f"  {passed}/{total} cases"))
        if info is not None:
            out += _pass_lines(info)
        else:
            out.append(("", "\n"))
        return out
    if total:
        out.append(("", f"  {passed}/{total} cases passed"))
    if result.get("seed") is not None:
        out.append(("class:dim", f"  seed {result['seed']}"))
    out.append(("", "\n"))
    if verdict == "internal":
        out.append(("class:internal", f"  {result.get('message') or 'the grader failed'}\n"))
        out.append(("class:dim", "  This is the grader's fault and does not count against you. Try :submit again.\n"))
        return out
    worst = first_failure(result)
    case = teaching_case(result) or worst
    message = str(result.get("message") or "")
    if message and (case is None or case.get("message") != message):
        out.append(("class:fail", f"  {message}\n"))
    shown = [c for c in (case, worst) if c is not None]
    for c in shown[:1] + [w for w in shown[1:] if w is not case]:
        out.append(("class:head", f"  case {c.get('name')}"))
        out.append(("class:dim", f" · {c.get('function')}() · {c.get('verdict')} · "))
        out.append(("class:dims", dims_text(c.get("dims", {})) + "\n"))
        if c.get("message"):
            out.append(("", f"    {c['message']}\n"))
    trap = result.get("trap")
    if trap:
        out.append(("class:trap bold", f"  trap: {trap.get('id')}"))
        out.append(("class:trap", f" — {trap.get('message')}\n"))
        for line in str(result.get("trap_why") or "").strip().splitlines()[:2]:
            out.append(("class:why", f"    {line.strip()}\n"))
    failing = [c for c in result.get("cases", []) if c.get("verdict") != "pass"]
    if len(failing) > len(set(map(id, shown))):
        rest = [str(c.get("name")) for c in failing if all(c is not x for x in shown)]
        names = ", ".join(rest[:4]) + (f" and {len(rest) - 4} more" if len(rest) > 4 else "")
        out.append(("class:dim", f"  also failing: {names}\n"))
    printed = str(result.get("output") or "").strip()
    if printed:
        out.append(("class:dim", "  it printed: " + " | ".join(printed.splitlines()[:3])[:160] + "\n"))
    out.append(("class:dim", "  The buffer is kept: fix it and :submit again.\n"))
    return out


def _pass_lines(info: PassInfo) -> Fragments:
    out: Fragments = []
    spare = info.target - info.elapsed
    out.append(("", f" · solved in {mmss(info.elapsed)}, target {mmss(info.target)}"))
    if spare >= 0:
        out.append(("class:pass", f" ({mmss(spare)} to spare)\n"))
    else:
        out.append(("class:over", f" ({mmss(-spare)} over)\n"))
    if info.due is not None:
        out.append(("class:dim", f"  Back for review {when(info.due, info.now)}.\n"))
    if info.reference:
        out.append(("class:head", "  Reference solution:\n"))
        for line in info.reference.splitlines():
            out.append(("class:code", f"    {line}\n"))
    if info.seed_trap.strip():
        out.append(("class:head", "  The trap this drill is about:\n"))
        for line in info.seed_trap.strip().splitlines():
            out.append(("class:why", f"    {line.strip()}\n"))
    return out


def when(due: datetime, now: datetime | None) -> str:
    """'in 3 days (Fri 04 Dec)', 'in 10 minutes', 'tomorrow (Sat 05 Dec)'."""
    stamp = due.astimezone().strftime("%a %d %b")
    if now is None:
        return f"on {stamp}"
    delta = (due - now).total_seconds()
    if delta < 3600:
        return f"in {max(1, int(delta // 60))} minutes"
    if delta < 86400:
        return f"in {int(delta // 3600)} hours"
    days = int(round(delta / 86400))
    if days == 1:
        return f"tomorrow ({stamp})"
    return f"in {days} days ({stamp})"


def compact(result: dict[str, Any]) -> Fragments:
    """A few lines for `drill watch`: the headline, the first failing case, the trap."""
    verdict = str(result.get("verdict", "internal"))
    out: Fragments = [(verdict_style(verdict) + " bold", LABEL.get(verdict, verdict.upper())),
                      ("", f"  {result.get('passed', 0)}/{result.get('total', 0)} cases"),
                      ("class:dim", f"  {float(result.get('seconds') or 0):.2f} s\n")]
    if verdict == "pass":
        return out
    case = teaching_case(result) or first_failure(result)
    if result.get("message") and (case is None or case.get("message") != result["message"]):
        out.append(("class:fail", f"  {result['message']}\n"))
    if case is not None:
        out.append(("", f"  {case.get('name')} ({dims_text(case.get('dims', {}))}): {case.get('message', '')}\n"))
    trap = result.get("trap")
    if trap:
        out.append(("class:trap", f"  trap: {trap.get('id')} — {trap.get('message')}\n"))
    return out


def plain(fragments: Fragments) -> str:
    return "".join(text for _, text in fragments)
