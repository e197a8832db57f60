"""The bottom bar: the drill, a live countdown against the target, the key hints."""
from __future__ import annotations

from dataclasses import dataclass

from trainer.verdict import Fragments, mmss


@dataclass(frozen=True)
class BarState:
    drill: str
    label: str  # "warm-up 2/5", "mock 1/3" or ""
    elapsed: float
    target: float
    left: float | None  # seconds left in a mock interview
    busy: str  # "grading..." while a job runs
    question: str
    message: str
    hints: list[tuple[str, str]]  # (key label, command)
    passed: bool = False


def countdown(elapsed: float, target: float) -> tuple[str, str]:
    """'5:48 to 7:00' counting down to the target; '+0:12 over 7:00' in red once past it."""
    if elapsed <= target:
        return ("class:bar.clock", f" {mmss(target - elapsed)} left of {mmss(target)} ")
    return ("class:bar.over bold", f" +{mmss(elapsed - target)} over {mmss(target)} ")


def bar(state: BarState, width: int = 100) -> Fragments:
    if state.question:
        return [("class:question bold", f" {state.question} "), ("class:question", " [y/n] ")]
    out: Fragments = [("class:bar.drill bold", f" {state.drill} ")]
    if state.label:
        out.append(("class:bar.label", f" {state.label} "))
    if state.passed:
        out.append(("class:bar.passed bold", f" solved in {mmss(state.elapsed)} "))
    else:
        out.append(countdown(state.elapsed, state.target))
    if state.left is not None:
        style = "class:bar.over bold" if state.left < 60 else "class:bar.clock"
        out.append((style, f" session {mmss(state.left)} left "))
    if state.busy:
        out.append(("class:bar.busy bold", f" {state.busy} "))
    elif state.message:
        out.append(("class:bar.message", f" {state.message} "))
    used = sum(len(t) for _, t in out)
    hint_text = "  ".join(f"{k} {c}" for k, c in state.hints)
    room = width - used - 1
    if room > 10:
        if len(hint_text) > room:
            hint_text = hint_text[: room - 1] + "…"
        out.append(("class:bar.hints", " " * max(1, room - len(hint_text)) + hint_text))
    return out
