"""The editor's text rules: where a drill opens, the `pass` placeholder, command lines.

- A drill opens with the cursor on its first body line: the first `pass`, at its
  indentation.
- `pass` on a line of its own is a placeholder: typing at its start replaces it
  (Enter there still opens a line above, as anywhere else).
- A `:`-line is never code: it leaves the buffer when it runs, the cursor staying
  on the now-empty line, and never reaches a draft.
- A whole module pasted into the untouched skeleton (a line at column 0 that
  starts `def`, `import`, `from` or `class`) replaces it, wherever the cursor is.
- A buffer that differs from the skeleton only by blank lines, a removed `pass`
  or command lines is still untouched: it is not a draft, and leaving it records
  nothing.
"""
from __future__ import annotations

import re

from prompt_toolkit.buffer import Buffer
from prompt_toolkit.document import Document

MODULE_LINE = re.compile(r"^(?:def|class|import|from)\s", re.M)
# a `:`-line, whole or half-typed (':', ':sub', ':hint 2'); a line that starts with ':' is never Python
COMMANDISH = re.compile(r"^\s*:[a-z]*(?:\s+[\w.-]*)?\s*$")


def opening(skeleton: str) -> int:
    """The cursor position a drill opens at: the first `pass` line's indentation, else the end."""
    pos = 0
    for line in skeleton.split("\n"):
        if line.strip() == "pass":
            return pos + len(line) - len(line.lstrip())
        pos += len(line) + 1
    return len(skeleton)


def without_commands(text: str) -> str:
    """The text with every `:`-line (whole or half-typed) taken out."""
    return "\n".join(line for line in text.split("\n") if not COMMANDISH.match(line))


def essence(text: str) -> list[str]:
    """What counts as the person's work: no blank lines, no `pass`, no command lines,
    no trailing spaces."""
    return [line.rstrip() for line in text.split("\n")
            if line.strip() and line.strip() != "pass" and not COMMANDISH.match(line)]


def untouched(text: str, skeleton: str) -> bool:
    return essence(text) == essence(skeleton)


def not_an_attempt(text: str, skeleton: str, *, unchanged_counts: bool = False) -> str | None:
    """Why a submit of `text` is no real attempt (None when it is one): an empty buffer, the
    untouched skeleton (unless `unchanged_counts`: a follow-up opens on code that may already
    answer it), or a file that does not parse. Such a submit is not graded or counted."""
    if not text.strip():
        return "the buffer is empty"
    if not unchanged_counts and untouched(text, skeleton):
        return "the buffer is still the code it opened with"
    try:
        compile(text, "<buffer>", "exec", dont_inherit=True)
    except SyntaxError as exc:  # IndentationError and TabError are SyntaxErrors
        where = f" at line {exc.lineno}" if exc.lineno else ""  # the buffer shows the line, numbered
        return f"{type(exc).__name__}{where}: {exc.msg}"
    except ValueError as exc:  # a NUL byte
        return f"it does not parse ({str(exc)[:80]})"
    except (RecursionError, MemoryError):
        return None  # too deep to parse here: the grader's sandbox says what it makes of it
    return None


def emptied_line(text: str, row: int) -> Document:
    """The text with command line `row` emptied down to its indentation, the cursor at its end."""
    lines = text.split("\n")
    line = lines[row]
    lines[row] = line[: len(line) - len(line.lstrip())]
    cursor = sum(len(x) + 1 for x in lines[:row]) + len(lines[row])
    return Document("\n".join(lines), cursor)


class CodeBuffer(Buffer):
    """A Buffer whose `pass` placeholder gives way to the first thing typed at its start, and
    whose untouched skeleton gives way to a whole module pasted anywhere in it."""

    skeleton = ""

    def insert_text(self, data: str, overwrite: bool = False, move_cursor: bool = True,
                    fire_event: bool = True) -> None:
        doc = self.document
        if self.skeleton and "\n" in data and MODULE_LINE.search(data) and untouched(doc.text, self.skeleton):
            self.document = Document(data, len(data))
            return
        indent = len(doc.current_line) - len(doc.current_line.lstrip())
        if data and not data.startswith("\n") and doc.current_line.strip() == "pass" \
                and doc.cursor_position_col == indent:
            self.delete(len(doc.current_line_after_cursor))
        super().insert_text(data, overwrite, move_cursor, fire_event)

    def append_to_history(self) -> None:
        """Store the buffer in the history and make it one of Alt-P's entries now: prompt_toolkit
        reads the history into its list of entries once, when the REPL opens, so a submission
        of this sitting was found only by the next one."""
        text = self.text
        strings = self.history.get_strings()
        new = bool(text) and (not strings or strings[-1] != text)
        super().append_to_history()
        if new:
            index = self.working_index
            self._working_lines.insert(index, text)  # just before the entry being edited
            setattr(self, "_Buffer__working_index", index + 1)  # the same entry: no cursor jump, no event
