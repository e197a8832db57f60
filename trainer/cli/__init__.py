"""The `drill` command line. Each command group lives in its own module and
registers its commands on the shared typer app when imported.

Start-up matters (`drill list` should cost at most twice the bare import of
typer, prompt_toolkit and yaml), so `main` imports only the module that owns
the command on the command line; help, completion and anything it does not
recognise import them all.
"""
from __future__ import annotations

import os
import sys

from trainer.cli.app import COMMANDS, app

MODULES = ("catalogue", "practice", "grading", "reporting", "team", "progress", "doctor")


STATUS = ""  # no command: the status, which lives with the progress commands


def _register(command: str | None = None) -> None:
    # Importing a module registers its commands on `app`.
    if command == STATUS:
        names: tuple[str, ...] = ("progress",)
    else:
        names = MODULES if command not in COMMANDS else (COMMANDS[command],)
    for name in names:
        __import__(f"trainer.cli.{name}")


def _command_from(argv: list[str]) -> str | None:
    """The command named on the command line, when nothing asks for the whole app."""
    if any(k.endswith("_COMPLETE") for k in os.environ):  # shell completion
        return None
    if not argv:
        return STATUS
    for arg in argv:
        if arg in ("--help", "-h", "--install-completion", "--show-completion"):
            return None
        if not arg.startswith("-"):
            return arg
    return None


def main() -> None:
    command = _command_from(sys.argv[1:])
    _register(command)
    app()
