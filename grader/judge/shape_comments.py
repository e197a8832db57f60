"""Shape comments checked: `# (B, H, T, S)` on a line, or on its own line just above
one, against the shape that line really makes on the example inputs.

A shape comment is a comment whose text starts with a parenthesised list of
dimension names or numbers (`# (B, T, H, dh)`, `# (2, 3, 4, 6) scores`, `# -> (B, T, d)`).
The shape a line makes is the last tensor the `:try` trace recorded for it
(grader.trace: the outermost operation of the line finishes last). Names are read
with the example's sizes (`d` is H * dh there), numbers as they are. A comment
whose line made no tensor on the example, or that names a dimension the drill
does not have, is not judged (`ok` is None): nothing is said about it.
"""
from __future__ import annotations

import io
import re
import tokenize
from typing import Any

from grader.dims import shape_names

_SHAPE = re.compile(r"^#\s*(?:->\s*|shape:?\s*)?\(([^()]*)\)")
_DIM = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$|^\d+$")


def comments(source: str) -> list[tuple[int, str, tuple[str, ...]]]:
    """(line the comment speaks of, the comment's shape as written, its dimensions)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return []
    lines = source.splitlines()
    out = []
    for tok in tokens:
        if tok.type != tokenize.COMMENT:
            continue
        m = _SHAPE.match(tok.string)
        if m is None:
            continue
        dims = tuple(p.strip() for p in m.group(1).split(",") if p.strip())
        if not dims or not all(_DIM.match(d) for d in dims):
            continue
        row = tok.start[0]
        if lines[row - 1][: tok.start[1]].strip() == "":  # a comment line of its own: the next code line
            row = next((i for i in range(row + 1, len(lines) + 1)
                        if lines[i - 1].strip() and not lines[i - 1].strip().startswith("#")), 0)
            if not row:
                continue
        out.append((row, "(" + ", ".join(dims) + ")", dims))
    return out


def check(source: str, trace: dict[str, Any]) -> list[dict[str, Any]]:
    """Each shape comment of `source` against `trace` (grader.trace.trace's result):
    `{"line", "says", "makes", "ok"}`, in line order."""
    found = comments(source)
    if not found:
        return []
    sizes = {k: int(v) for k, v in (trace.get("dims") or {}).items()}
    made: dict[int, dict[str, Any]] = {}
    for call in trace.get("calls") or []:
        for step in call.get("steps") or []:
            made[int(step["line"])] = step  # the last tensor recorded for the line
    out = []
    for line, says, dims in found:
        step = made.get(line)
        want = [int(d) if d.isdigit() else sizes.get(d) for d in dims]
        if step is None or any(w is None for w in want):
            out.append({"line": line, "says": says, "makes": None, "ok": None})
            continue
        shape = [int(s) for s in step["shape"]]
        numbers = all(d.isdigit() for d in dims)
        makes = shape_names([str(s) for s in shape]) if numbers else str(step.get("names") or "")
        out.append({"line": line, "says": says, "makes": makes, "ok": shape == want})
    return out


def wrong_lines(checked: list[dict[str, Any]]) -> list[str]:
    """'line 9 says (B, T, H, dh); it makes (B, H, T, dh)' for each wrong comment."""
    return [f"line {c['line']} says {c['says']}; it makes {c['makes']}" for c in checked if c.get("ok") is False]
