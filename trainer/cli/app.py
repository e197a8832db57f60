"""The shared typer application and small helpers for command modules."""
from __future__ import annotations

import os
import sys
from pathlib import Path
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
    """A usage problem: the reason on stderr (control characters made visible: it often
    quotes a path or an argument), exit status 2 (CLI.md)."""
    from trainer.markup import printable

    typer.echo(f"drill: {printable(message)}", err=True)
    raise typer.Exit(2)


def emit(text: str, output: Path | None, what: str) -> None:
    """Print text to stdout, or write it atomically to output and say so on stderr."""
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    from trainer.files import write_atomically
    from trainer.markup import printable

    try:
        write_atomically(output, text)
    except OSError as exc:
        typer.echo(f"drill: cannot write {printable(output)}: {exc.strerror or exc}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"wrote {what} to {printable(output)}", err=True)
