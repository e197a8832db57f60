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
# the comment's opening run of shapes, joined by arrows, operators, commas or "or"; its prose starts after
_LEAD = re.compile(r"\s*(?:(\([^()]*\))|(->)(?=\s*\()|(?:[-+*/@x,]|\bor\b)(?=\s*(?:\(|->|or\b)))")
_DIM = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+)(?:\s*\*\s*(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+))*$")
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
        if m is None or _dims(m.group(1)) is None:
            continue
        dims = _claim(tok.string)
        row = tok.start[0]
        if row > len(lines):
            continue
        if lines[row - 1][: tok.start[1]].strip() == "":  # a comment line of its own: the next code line
            row = code_at[row] if row < len(code_at) else 0
            if not row:
                continue
        shown = dims or _dims(m.group(1)) or ()
        out.append((row, "(" + ", ".join(_shown(d) for d in shown) + ")", dims))
    return out


def _dims(group: str) -> tuple[str, ...] | None:
    """A parenthesised group's dimensions (`B`, `4`, `M*P`), or None when it is no shape."""
    dims = tuple("".join(p.split()) for p in group.split(",") if p.strip())
    return dims if dims and all(_DIM.match(d) for d in dims) else None


def _claim(comment: str) -> tuple[str, ...]:
    """The shape a comment says its line makes, read from its opening run of shapes (what follows is
    prose: `# (B, V): (B,) -> (B, 1), one per row` claims (B, V)): the shape after the run's last arrow
    (`# (N, 1) + (M,) -> (N, M)`), else its only shape. () when the run names several with no arrow to
    choose (`# (N, d), (M, d)`, `# (B, T, d), or (T, B, d)`): such a comment is not judged."""
    text = re.sub(r"^#\s*(?:shape:?\s*)?", "", comment)
    shapes: list[tuple[str, ...] | None] = []
    arrow_at = -1
    at = 0
    while True:
        m = _LEAD.match(text, at)
        if m is None or m.end() == at:
            break
        at = m.end()
        if m.group(1):
            shapes.append(_dims(m.group(1)[1:-1]))
        elif m.group(2):
            arrow_at = len(shapes)
    if arrow_at >= 0:
        after = shapes[arrow_at:]
        return after[-1] or () if after else ()
    return shapes[0] or () if len(shapes) == 1 else ()


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
    than any size has), a name by the example's sizes, a product (`M*P`) of its factors; None for a
    name the drill does not have, or one whose example size is 0 (a size the data decides, declared
    0: the number of boxes an NMS keeps, say)."""
    if "*" in dim:
        total = 1
        for part in dim.split("*"):
            one = _size(part, sizes)
            if one is None or one < 0:
                return one
            total *= one
        return total
    if dim.isdigit():
        digits = dim.lstrip("0") or "0"  # 0005 is 5, however many zeros lead
        return int(digits) if len(digits) <= _LONGEST else -1
    return sizes.get(dim) or None


def check(source: str, trace: dict[str, Any]) -> list[dict[str, Any]]:
    """Each shape comment of `source` against `trace` (grader.trace.trace's result):
    `{"line", "says", "makes", "ok"}`, in line order."""
    found = comments(source)
    if not found:
        return []
    sizes = {k: int(v) for k, v in (trace.get("dims") or {}).items()}
    steps: dict[int, list[dict[str, Any]]] = {}
    for call in trace.get("calls") or []:
        for step in call.get("steps") or []:
            steps.setdefault(int(step["line"]), []).append(step)
    out = []
    for line, says, dims in found:
        made = _made(steps.get(line) or [])
        want = [_size(d, sizes) for d in dims]
        if not made or not dims or any(w is None for w in want):
            out.append({"line": line, "says": says, "makes": None, "ok": None})
            continue
        step = next((s for s in made if [int(n) for n in s["shape"]] == want), made[-1])
        shape = [int(s) for s in step["shape"]]
        numbers = all(d.isdigit() for d in dims)
        makes = shape_names([str(s) for s in shape]) if numbers else str(step.get("names") or "")
        out.append({"line": line, "says": says, "makes": makes, "ok": shape == want})
    return out


def _made(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a line makes: the tensors of its last operation. The last step recorded for the line names
    that operation (the outermost finishes last); a line run in a loop may make it at several shapes
    (a tiled loop's last block may be shorter), each recorded once, and any of them is what it makes."""
    if not steps:
        return []
    last = steps[-1].get("op")
    return [s for s in steps if s.get("op") == last]


def wrong_lines(checked: list[dict[str, Any]]) -> list[str]:
    """'line 9 says (B, T, H, dh); it makes (B, H, T, dh)' for each wrong comment."""
    return [f"line {c['line']} says {c['says']}; it makes {c['makes']}" for c in checked if c.get("ok") is False]
