"""Escaping for the formats that interpret text: HTML and markdown.

Untrusted strings (team member names, anything read from a results file) go
through these on their way out, so `<script>`, `|`, `[a](b)` or a newline
render as the characters they are.
"""
from __future__ import annotations

import re
import unicodedata
from html import escape

# `(` and `)` are left alone: with `[` and `]` escaped they cannot form a link, and shapes
# such as (B, T) stay readable in the markdown source. A colon is escaped only where it
# would start an autolink (`http://`).
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]#!|~]|:(?=//))")
_MD_LINE_START = re.compile(r"^([-+]|\d+(?=[.)]))")


def html_text(text: object) -> str:
    """Text for HTML content or a quoted attribute."""
    return escape(str(text), quote=True)


def md_text(text: object) -> str:
    """Text for markdown (also safe inside a table cell): one line, HTML entities for
    `& < >`, and a backslash before every character markdown gives a meaning to."""
    one_line = " ".join(str(text).split())
    entities = one_line.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    escaped = _MD_SPECIAL.sub(r"\\\1", entities)
    # a leading "-", "+" or "1." would start a list: escape the marker
    return _MD_LINE_START.sub(lambda m: "\\" + m.group(1) if not m.group(1)[0].isdigit()
                              else m.group(1) + "\\", escaped, count=1)


def md_code(text: object) -> str:
    """A code span for trusted text (drill ids, commands); backticks inside are dropped."""
    return "`" + " ".join(str(text).replace("`", "").split()) + "`"


def printable(text: object) -> str:
    """Text safe to print on a terminal, on one line: control and format characters
    (ANSI escapes, carriage returns, bidi overrides, newlines) are shown as escapes such
    as `\\x1b`, `\\r` or `\\u202e`, so they are visible and never act."""
    return "".join(_visible(ch) for ch in str(text))


def printable_lines(text: object) -> list[str]:
    """Multi-line untrusted text (what a solution printed) as safe lines."""
    return [printable(line) for line in str(text).split("\n")]


_NAMED = {"\t": "\\t", "\r": "\\r", "\n": "\\n"}


def _visible(ch: str) -> str:
    if unicodedata.category(ch) not in ("Cc", "Cf", "Cs", "Co", "Zl", "Zp"):
        return ch
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"