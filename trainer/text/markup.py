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
    """Text for HTML content or a quoted attribute; control characters other than
    whitespace are shown as escapes (the page may be printed on a terminal)."""
    return escape(printable(text, keep="\n\t"), quote=True)


def md_text(text: object) -> str:
    """Text for markdown (also safe inside a table cell): one line, HTML entities for
    `& < >`, control characters shown as escapes, and a backslash before every character
    markdown gives a meaning to."""
    one_line = printable(" ".join(str(text).split()))
    entities = one_line.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    escaped = _MD_SPECIAL.sub(r"\\\1", entities)
    # a leading "-", "+" or "1." would start a list: escape the marker
    return _MD_LINE_START.sub(lambda m: "\\" + m.group(1) if not m.group(1)[0].isdigit()
                              else m.group(1) + "\\", escaped, count=1)


def md_code(text: object) -> str:
    """A code span for trusted text (drill ids, commands); backticks inside are dropped."""
    return "`" + " ".join(str(text).replace("`", "").split()) + "`"


_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_HIDDEN = ("Cc", "Cf", "Cs", "Co", "Zl", "Zp")  # controls, formats (bidi), surrogates, private use, separators


def visible(ch: str) -> str:
    """One control, format or surrogate character as the escape a person can read:
    ESC as ``\\x1b``, a newline as ``\\n``, a bidi override as ``\\u202e``."""
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def printable(text: object, keep: str = "") -> str:
    """Text safe to print on a terminal: control and format characters (ANSI escapes,
    bidi overrides, newlines) are shown as visible escapes (``\\x1b``, ``\\u202e``,
    ``\\n``) and never reach the terminal raw. Characters in ``keep`` (say ``"\\n"``)
    pass through."""
    return "".join(visible(ch) if ch not in keep and unicodedata.category(ch) in _HIDDEN else ch
                   for ch in str(text))


def printable_lines(text: object) -> list[str]:
    """Multi-line untrusted text (what a solution printed) as safe lines."""
    return [printable(line) for line in str(text).split("\n")]
