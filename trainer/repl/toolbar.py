"""The bottom bar: the drill, one clock, the vi mode, a message and the key hints.

It fits the width: the key hints are dropped whole, least needed first (never cut
to `^…`), then the clock and the label take their short forms. In a warm-up
the clock counts down to the drill's target; in a mock interview or a team session
it is their countdown, with the drill's target beside it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from trainer.repl.wrap import wrap_line
from trainer.text.verdict import Fragments, mmss, plain


@dataclass(frozen=True)
class BarState:
    drill: str
    label: str  # "warm-up 2/5", "mock 1/3" or ""
    elapsed: float
    target: float
    left: float | None  # seconds left in a mock interview or a team session
    busy: str  # "grading..." while a job runs
    question: str
    message: str
    hints: list[tuple[str, str]]  # (key label, command)
    passed: bool = False
    vi_mode: str = ""  # INSERT / NORMAL with vi keys
    choices: list[tuple[str, str]] = field(default_factory=list)  # (key, what) of a question that is not y/n


KEEP_FIRST = ("submit", "quit")  # the hints dropped last


def countdown(elapsed: float, target: float, short: bool = False) -> tuple[str, str]:
    """'5:48 left of 7:00' counting down to the target; '+0:12 over 7:00' in red once past it."""
    if elapsed <= target:
        text = f" {mmss(target - elapsed)} left " if short else f" {mmss(target - elapsed)} left of {mmss(target)} "
        return ("class:bar.clock", text)
    return ("class:bar.over bold", f" +{mmss(elapsed - target)} over " if short
            else f" +{mmss(elapsed - target)} over {mmss(target)} ")


def deadline_clock(left: float, elapsed: float, target: float, short: bool = False) -> Fragments:
    """The mock's or team session's countdown, the one clock, and the drill's target beside it."""
    style = "class:bar.over bold" if left < 60 else "class:bar.clock"
    over = elapsed > target
    target_text = f" target {mmss(target)} " if short else f" drill target {mmss(target)} "
    return [(style, f" {mmss(left)} left "), ("class:bar.over" if over else "class:bar.label", target_text)]


def question_bar(state: BarState, width: int) -> Fragments:
    """The question and its keys, folded at spaces when it is wider than the bar."""
    if not state.choices:
        out: Fragments = [("class:question bold", f" {state.question} "), ("class:question", " [y/n] ")]
    else:
        out = [("class:question bold", f" {state.question} ")]
        for key, what in state.choices:
            out.append(("class:question bold", f" {key}"))
            out.append(("class:question", f" {what} "))
        out.append(("class:question", " Esc stay "))
    return _folded(out, width)


def _folded(line: Fragments, width: int) -> Fragments:
    rows = wrap_line(line, width - 1)
    out: Fragments = []
    for i, row in enumerate(rows):
        if i:
            out.append(("", "\n"))
        out.extend(row)
    return out


def short_label(label: str) -> str:
    """The label's last part, in a word: "warm-up 2/5" -> "2/5", "mock 1/3 · follow-up" -> "follow-up",
    "warm-up 1/4 · debug: find the bug" -> "debug" (what the sitting is, not the last word of a phrase)."""
    last = label.split(" · ")[-1]
    return last.split(":")[0].strip() if ":" in last else last.split()[-1]


def _status(state: BarState, level: int) -> Fragments:
    """Level 0: everything in full; 1: the clock short; 2: the label short too."""
    short = level >= 1
    out: Fragments = [("class:bar.drill bold", f" {state.drill} ")]
    if state.label:
        label = short_label(state.label) if level >= 2 else state.label
        out.append(("class:bar.label", f" {label} "))
    if state.passed:
        out.append(("class:bar.passed bold", f" solved in {mmss(state.elapsed)} "))
        if state.left is not None:
            out.append(deadline_clock(state.left, state.elapsed, state.target, short)[0])
    elif state.left is not None:
        out += deadline_clock(state.left, state.elapsed, state.target, short)
    else:
        out.append(countdown(state.elapsed, state.target, short))
    if state.vi_mode:
        out.append(("class:bar.mode bold", f" {state.vi_mode} "))
    return out


def _fit_hints(hints: list[tuple[str, str]], room: int) -> str:
    """As many whole hints as fit in `room`, in bar order: after a pass "Enter next" is kept
    longest (in its short form, without the drill's name, when the long one does not fit),
    then the ones in KEEP_FIRST, then the rest."""
    def rank(i: int) -> tuple[int, int]:
        what = hints[i][1]
        return (0 if what.startswith("next") else 1 if what.split(":")[0] in KEEP_FIRST else 2, i)

    shown = {i: f"{key} {what}" for i, (key, what) in enumerate(hints)}
    kept: list[int] = []
    for i in sorted(range(len(hints)), key=rank):
        forms = [shown[i]] + ([f"{hints[i][0]} next"] if hints[i][1].startswith("next:") else [])
        for form in forms:
            trial = {**{j: shown[j] for j in kept}, i: form}
            if len("  ".join(trial[j] for j in sorted(trial))) <= room:
                shown[i] = form
                kept.append(i)
                break
    return "  ".join(shown[j] for j in sorted(kept))


def bar(state: BarState, width: int = 100) -> Fragments:
    """The bar's fragments. When the status, the message and the submit/quit hints do not
    fit on one row, the status takes its short form, then the message moves to a second
    row (the REPL gives the bar the rows it needs); the hints fill what is left of the
    last row, whole."""
    width = max(20, width)
    if state.question:
        return question_bar(state, width)
    note = state.busy or state.message
    kept = [h for h in state.hints if h[1] in KEEP_FIRST or h[1].startswith("next")]
    need = (len(note) + 2 if note else 0) + (len("  ".join(f"{k} {c}" for k, c in kept)) + 2 if kept else 0)
    for level in range(3):
        out = _status(state, level)
        if len(plain(out)) + need <= width:
            break
    if len(plain(out)) > width:
        out = _folded(out, width)
    first = next((h for h in state.hints if h[1].startswith("next")), None)  # after a pass: what to press
    first_room = len(f"{first[0]} next") + 2 if first else 0
    if note:
        frag = ("class:bar.busy bold" if state.busy else "class:bar.message", f" {note} ")
        # the note takes a row of its own when it would crowd out "Enter next"
        if len(plain(out).split("\n")[-1]) + len(frag[1]) + first_room > width:
            out = out + [("", "\n")] + _folded([frag], width)
        else:
            out.append(frag)
    last = plain(out).split("\n")[-1]
    room = width - len(last) - 1
    hint_text = _fit_hints(state.hints, room - 1)
    if hint_text:
        out.append(("class:bar.hints", " " * max(1, room - len(hint_text)) + hint_text))
    return out
