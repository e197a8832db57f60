"""Notices: one line on stderr about something the store found and dealt with (a stored
setting it cannot use, objects in progress.db that drill did not create), said once per command.

The CLI runs each command in a ``contextvars`` context of its own (trainer.cli.app), so a command
starts with nothing said and what it said is forgotten when it ends; the set of lines said is
replaced, never changed in place, so nothing leaks between contexts. Hostile parts of a line (a stored value, a
trigger's name) are quoted with ``repr`` by the caller: control characters arrive escaped.
"""
from __future__ import annotations

import sys
from contextvars import ContextVar

_SAID: ContextVar[frozenset[str]] = ContextVar("drill_store_notices_said", default=frozenset())


def say(line: str) -> None:
    """Print ``drill: line`` on stderr unless this command has said it already."""
    said = _SAID.get()
    if line in said:
        return
    _SAID.set(said | {line})
    try:
        print(f"drill: {line}", file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass  # a closed stderr: the notice is lost, the command goes on


def forget() -> None:
    """Start afresh, as a new command does (tests)."""
    _SAID.set(frozenset())
