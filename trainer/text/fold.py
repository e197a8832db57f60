"""Plain text folded to the terminal's width at spaces, never inside a word."""
from __future__ import annotations

import re
import textwrap

_STRUCTURED = re.compile(r"^(\s|[-*•]\s|\d+[.)]\s|>>>|```)")


def terminal_width(default: int = 100) -> int:
    """The terminal's columns, at least 30: $COLUMNS, else the terminal on stdout, stderr
    or stdin (so `drill list | head` still fits the screen it lands on), else `default`."""
    import os

    env = os.environ.get("COLUMNS", "")
    if env.isdigit() and int(env) > 0:
        return max(30, int(env))
    for fd in (1, 2, 0):
        try:
            return max(30, os.get_terminal_size(fd).columns)
        except OSError:
            continue
    return max(30, default)


def terminal_width_of(stream: object) -> int | None:
    """`terminal_width()` when `stream` is a terminal, else None: a pipe or a file gets its lines
    whole, as scripts read them (a closed or missing stream too)."""
    try:
        on_terminal = bool(stream.isatty())  # type: ignore[attr-defined]
    except (ValueError, AttributeError, OSError):
        return None
    return terminal_width() if on_terminal else None


def fold_line(line: str, width: int, indent: str = "", more: str = "    ") -> list[str]:
    """One line as several of at most `width` columns (a word longer than the width
    stays whole on its own line); continuation lines get the line's own indentation
    plus `more`."""
    if len(indent) + len(line) <= width:
        return [indent + line]
    own = line[:len(line) - len(line.lstrip(" "))]
    return textwrap.wrap(line.strip(), width=max(10, width), initial_indent=indent + own,
                         subsequent_indent=indent + own + more, break_long_words=False,
                         break_on_hyphens=False) or [indent]


def fold(text: str, width: int, indent: str = "") -> list[str]:
    """Multi-line text folded to `width`: runs of prose lines are refilled as one
    paragraph; indented, bulleted or numbered lines are folded one by one."""
    out: list[str] = []
    para: list[str] = []

    def flush() -> None:
        if para:
            out.extend(textwrap.wrap(" ".join(p.strip() for p in para), width=max(10, width),
                                     initial_indent=indent, subsequent_indent=indent,
                                     break_long_words=False, break_on_hyphens=False))
            para.clear()

    for line in text.split("\n"):
        if not line.strip():
            flush()
            out.append("")
        elif _STRUCTURED.match(line):
            flush()
            out.extend(fold_line(line, width, indent))
        else:
            para.append(line)
    flush()
    while out and out[-1] == "":
        out.pop()
    return out
