"""The errors a person is shown: each carries the lines to print and the exit status.

Every domain error of grader/ and trainer/ (a broken spec, an unknown drill id, a
file that cannot be read, a damaged progress store, a bad plan or team file, a
wrong option) subclasses `DrillError`. The command line catches that one class
at its edge (trainer.cli.errors) and prints each line as `drill: LINE` on
stderr, then exits with `exit_code`: 2 for a usage problem, 1 otherwise
(docs/CLI.md). Any other exception is a bug and is not dressed up as one of these.

Torch-free and import-free, so that the edge can know every error without
importing the modules that raise them (`drill list` must start fast).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence


class DrillError(Exception):
    """A problem to show a person: `lines` (one message each) and an exit status.

    `text` is the exception's own str() when it should read otherwise than the
    lines joined by newlines (a team file's problems read `a; b` in one line)."""

    exit_code = 1

    def __init__(self, lines: str | Sequence[str], *, exit_code: int | None = None, text: str | None = None) -> None:
        self.lines = [lines] if isinstance(lines, str) else [str(line) for line in lines]
        if exit_code is not None:
            self.exit_code = exit_code
        super().__init__("\n".join(self.lines) if text is None else text)


class UsageError(DrillError):
    """The command line asks for something that cannot be done as asked: exit status 2."""

    exit_code = 2


class UnknownDrill(UsageError, LookupError):
    """A drill id no catalogue holds. The one such error: the catalogue raises it, and the
    worker client raises it again for an id the worker does not know."""


MAX_SHOWN = 60  # characters of a value a person typed or a file held, echoed in a message


def cut(text: object, limit: int = MAX_SHOWN) -> str:
    """A value echoed in a message, cut at ``limit`` characters with "..." after it: a message
    names what was wrong, it does not repeat 120 KB of it. The one cutting helper."""
    value = str(text)
    return value if len(value) <= limit else value[:limit] + "..."


def unknown_drill_message(drill_id: object, known: Iterable[str]) -> str:
    """The one message for a drill id the catalogue lacks, everywhere: with the closest
    ids when there are any, else a pointer to `drill list`."""
    import difflib

    close = difflib.get_close_matches(str(drill_id)[:200], list(known), n=3)
    hint = f"did you mean {', '.join(close)}?" if close else "`drill list` shows every id"
    return f"unknown drill id {cut(drill_id)!r}; {hint}"
