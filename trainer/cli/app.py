"""The shared typer application and small helpers for command modules."""
from __future__ import annotations

import os
import sys
from typing import NoReturn

import typer

app = typer.Typer(
    name="drill",
    help="A terminal trainer for the tensor-shape questions of ML coding interviews.",
    no_args_is_help=False,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def no_color() -> bool:
    return bool(os.environ.get("NO_COLOR"))


def usage_error(message: str) -> NoReturn:
    """A usage problem: the reason on stderr, exit status 2 (CLI.md)."""
    typer.echo(f"drill: {message}", err=True)
    raise typer.Exit(2)
