"""After a debug round's pass: where the bug was, which trap it was, and what changed.

`debrief(...)` compares the planted code (grader.rounds.Planted) with the code
that passed. A fix that changed the planted line(s) and little else is told as
found ("the bug was on line 13"); one that changed most of the file is a pass told
as a rewrite ("you rewrote it; the bug was on line 13: ..."); one that left the
planted lines as they were passed by changing something else, and says so. Then
the diff from the planted code to the code that passed (its first lines).
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import TYPE_CHECKING

from trainer.text.markup import printable
from trainer.text.verdict import Fragments

if TYPE_CHECKING:
    from grader.rounds import Planted

DIFF_LINES = 24  # diff lines shown; the rest is counted
REWRITE_SHARE = 0.5  # more than this share of the other lines changed: a rewrite


@dataclass(frozen=True)
class Fix:
    """How the passing code relates to the planted code."""

    kind: str  # found | rewrote | elsewhere
    changed: frozenset[int]  # 1-based lines of the planted code that the fix changed or removed


def classify(planted: Planted, fixed: str) -> Fix:
    before, after = _rows(planted.code), _rows(fixed)
    kept: set[int] = set()
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for block in matcher.get_matching_blocks():
        kept.update(range(block.a + 1, block.a + block.size + 1))
    changed = frozenset(i for i in range(1, len(before) + 1) if i not in kept and before[i - 1].strip())
    code_lines = [i for i in range(1, len(before) + 1) if before[i - 1].strip()]
    others = [i for i in code_lines if i not in planted.lines]
    other_changed = [i for i in others if i in changed]
    if others and len(other_changed) > max(2, REWRITE_SHARE * len(others)):
        return Fix("rewrote", changed)
    touched = any(i in changed for i in planted.lines) or _inserted_at(matcher, planted.lines)
    return Fix("found" if touched else "elsewhere", changed)


def _inserted_at(matcher: difflib.SequenceMatcher, lines: tuple[int, ...]) -> bool:
    """A line put back where the round deleted one (the fix of a deletion is an insertion)."""
    inserts = [i1 for tag, i1, _i2, _j1, _j2 in matcher.get_opcodes() if tag == "insert"]
    return any(i1 <= line <= i1 + 1 for i1 in inserts for line in lines)


def _rows(text: str) -> list[str]:
    return [row.rstrip() for row in text.replace("\r\n", "\n").split("\n")]


def _where(planted: Planted) -> str:
    """'line 13: <the buggy line>', or where a deleted line was missing."""
    bugs = planted.bug_lines()
    if len(planted.lines) == 1:
        line = planted.lines[0]
        if line in planted.removed:
            return f"line {line}: a line was missing just after it"
        return f"line {line}: {bugs[0]}"
    return "lines " + ", ".join(str(n) for n in planted.lines)


def debrief(planted: Planted, fixed: str, trap_message: str, width: int = 100) -> Fragments:
    """The pane's lines after the pass (prompt_toolkit fragments)."""
    fix = classify(planted, fixed)
    where = printable(_where(planted))
    trap = f"the trap {planted.trap}" + (f" — {printable(trap_message)}" if trap_message else "")
    out: Fragments = [("class:head bold", "Debug round: ")]
    if fix.kind == "found":
        out.append(("", f"found and fixed. The bug was on {where}\n"))
    elif fix.kind == "rewrote":
        out.append(("", f"a pass: you rewrote it; the bug was on {where}\n"))
    else:
        out.append(("", f"a pass, by a change elsewhere; the bug was on {where}\n"))
    out.append(("class:trap", f"  {trap}\n"))
    if planted.correct:
        out.append(("class:dim", "  the line(s) it replaced: "))
        out.append(("class:code", "; ".join(printable(c) for c in planted.correct) + "\n"))
    diff = [line for line in difflib.unified_diff(_rows(planted.code), _rows(fixed), "planted", "yours",
                                                  lineterm="", n=0)]
    if diff:
        out.append(("class:dim", "  the diff, planted -> yours:\n"))
        for line in diff[:DIFF_LINES]:
            style = "class:fail" if line.startswith("-") and not line.startswith("---") else \
                "class:pass" if line.startswith("+") and not line.startswith("+++") else "class:dim"
            out.append((style, "    " + printable(line)[: max(20, width - 4)] + "\n"))
        if len(diff) > DIFF_LINES:
            out.append(("class:dim", f"    ... {len(diff) - DIFF_LINES} more diff line(s)\n"))
    return out
