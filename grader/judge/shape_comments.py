"""Shape comments checked: `# (B, H, T, S)` on a line, or on its own line just above
one, against the shape that line really makes on the example inputs.

A shape comment is a comment whose text starts with a parenthesised list of
dimension names or numbers (`# (B, T, H, dh)`, `# (2, 3, 4, 6) scores`, `# -> (B, T, d)`).
The shape a line makes is the last tensor the `:try` trace recorded for it
(grader.trace: the outermost operation of the line finishes last). Names are read
with the example's sizes (`d` is H * dh there), numbers as they are. A comment
whose line made no tensor on the example, or that names a dimension the drill
does not have, is not judged (`ok` is None): nothing is said about it.

The source is the person's (or a tool's): a number too long for int() (Python's
4300-digit limit) is read as what it is, larger than any size, and shown shortened;
the comments are found in one pass, however many lines of comments stand in a row.
"""
from __future__ import annotations

import io
import re
import tokenize
from typing import Any

from grader.dims import shape_names

_SHAPE = re.compile(r"^#\s*(?:->\s*|shape:?\s*)?\(([^()]*)\)")
_DIM = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$|^[0-9]+$")
_LONGEST = 18  # digits of a number read as a size; a longer one is larger than any tensor's size


def comments(source: str) -> list[tuple[int, str, tuple[str, ...]]]:
    """(line the comment speaks of, the comment's shape as written, its dimensions)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return []
    lines = io.StringIO(source).readlines()  # numbered as tokenize numbers them (str.splitlines also splits at \f, \x1c...)
    code_at = _next_code_lines(lines)
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
        if row > len(lines):
            continue
        if lines[row - 1][: tok.start[1]].strip() == "":  # a comment line of its own: the next code line
            row = code_at[row] if row < len(code_at) else 0
            if not row:
                continue
        out.append((row, "(" + ", ".join(_shown(d) for d in dims) + ")", dims))
    return out


def _next_code_lines(lines: list[str]) -> list[int]:
    """For each line number n (1-based), the first code line after it (0: none), found from the
    end in one pass: a run of comment lines is not scanned again from each of its lines."""
    after = [0] * (len(lines) + 1)
    following = 0
    for n in range(len(lines), 0, -1):
        after[n] = following
        text = lines[n - 1].strip()
        if text and not text.startswith("#"):
            following = n
    return after


def _shown(dim: str) -> str:
    """A dimension as the report shows it: a number too long to read is shortened."""
    return dim if len(dim) <= _LONGEST else f"{dim[:6]}...({len(dim)} digits)"


def _size(dim: str, sizes: dict[str, int]) -> int | None:
    """The size a comment's dimension stands for: a number as written (-1 when it has more digits
    than any size has), a name by the example's sizes, None for a name the drill does not have."""
    if dim.isdigit():
        digits = dim.lstrip("0") or "0"  # 0005 is 5, however many zeros lead
        return int(digits) if len(digits) <= _LONGEST else -1
    return sizes.get(dim)


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
        want = [_size(d, sizes) for d in dims]
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
