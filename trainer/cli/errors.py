"""The CLI's one error edge: a domain error becomes `drill: message` on stderr and an
exit status, here and nowhere else.

Commands let StoreError, PlanError, TeamError, SpecError and UnknownDrill rise;
`DrillGroup.invoke` (trainer.cli.app) runs every command inside `domain_errors()`,
so the mapping holds however the app is called (`drill ...`, `python -m trainer`,
typer's CliRunner). The error classes are looked up in `sys.modules` rather than
imported: an instance of a class exists only once its module is loaded, and
`drill list` must not pay for importing trainer.team to start.
"""
from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Callable, Iterator

import typer

from trainer.text.markup import printable


def _message(exc: BaseException) -> list[str]:
    return [getattr(exc, "message", None) or str(exc)]


def _problems(exc: BaseException) -> list[str]:
    return list(getattr(exc, "problems", None) or [str(exc)])


def _store_status(exc: BaseException) -> int:
    return int(getattr(exc, "exit_code", 1))


# (module, class, the lines to print, the exit status); the first match wins
EDGE: tuple[tuple[str, str, Callable[[BaseException], list[str]], Callable[[BaseException], int]], ...] = (
    ("trainer.store", "StoreError", _message, _store_status),  # its exit_code: 1, or 2 for a newer schema
    ("trainer.schedule.plans", "PlanError", _message, lambda exc: 1),
    ("trainer.team", "TeamError", _problems, lambda exc: 2),  # a session file or option: usage
    ("grader.catalogue", "UnknownDrill", _message, lambda exc: 2),  # usage (CLI.md)
    ("grader.spec", "SpecError", _problems, lambda exc: 2),
)


def mapped(exc: BaseException) -> tuple[list[str], int] | None:
    """The lines and exit status for a domain error; None for any other exception."""
    for module_name, class_name, lines, status in EDGE:
        module = sys.modules.get(module_name)
        cls = getattr(module, class_name, None) if module is not None else None
        if cls is not None and isinstance(exc, cls):
            return lines(exc), status(exc)
    return None


@contextmanager
def domain_errors() -> Iterator[None]:
    """Turn a domain error into `drill: message` lines on stderr and its exit status."""
    try:
        yield
    except Exception as exc:
        found = mapped(exc)
        if found is None:
            raise
        lines, status = found
        for line in lines:
            typer.echo(f"drill: {printable(line)}", err=True)
        raise typer.Exit(status) from None
