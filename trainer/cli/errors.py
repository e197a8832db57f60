"""The CLI's one error edge: a domain error becomes `drill: line` on stderr and its exit
status, here and nowhere else.

Every domain error subclasses grader.errors.DrillError, which carries the lines to
print and the exit status (2 for a usage problem, 1 otherwise: docs/CLI.md). Commands
raise them (a usage problem as `raise UsageError(...)`) or let them rise from below
(StoreError, PlanError, TeamError, SpecError, UnknownDrill, UnreadableFile...);
`DrillGroup.invoke` (trainer.cli.app) runs every command inside `domain_errors()`, so
the mapping holds however the app is called (`drill ...`, `python -m trainer`, typer's
CliRunner). grader.errors imports nothing, so knowing the base class costs `drill list`
no start-up time.
"""
from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Iterator

import typer

from grader.errors import DrillError
from trainer.text.fold import fold_line, terminal_width_of
from trainer.text.markup import printable


def shown(exc: DrillError, width: int | None = None) -> tuple[list[str], int]:
    """The lines (control characters made visible: they often quote a path or an argument)
    and the exit status for a domain error; with `width`, each line folded at spaces to it."""
    lines = [f"drill: {printable(line)}" for line in exc.lines]
    if width:
        lines = [part for line in lines for part in fold_line(line, width)]
    return lines, exc.exit_code


@contextmanager
def domain_errors() -> Iterator[None]:
    """Turn a domain error into `drill: line` lines on stderr and its exit status."""
    try:
        yield
    except DrillError as exc:
        lines, status = shown(exc, terminal_width_of(sys.stderr))
        for line in lines:
            typer.echo(line, err=True)
        raise typer.Exit(status) from None
