"""The shared typer application and small helpers for command modules."""
from __future__ import annotations

import contextvars
import os
import sys
from pathlib import Path
from typing import Any

import typer
from typer._click.core import Context  # typer vendors click: its Group.invoke takes this Context
from typer._click.formatting import HelpFormatter
from typer.core import TyperGroup

from grader.errors import DrillError, UsageError
from trainer.cli.errors import domain_errors
from trainer.files import write_atomically
from trainer.text.fold import terminal_width
from trainer.text.markup import printable

# `drill --help` lists the commands in the order of a day's use, then the
# occasional ones; trainer.cli imports each command's module from this table.
COMMANDS: dict[str, str] = {
    "list": "catalogue", "show": "catalogue", "warmup": "practice", "solve": "practice", "debug": "debug",
    "watch": "practice", "check": "grading", "mock": "practice", "report": "reporting",
    "undo": "progress", "rate": "progress", "bury": "progress", "suspend": "progress",
    "unsuspend": "progress", "team": "team", "settings": "progress", "doctor": "doctor", "export": "progress",
    "import": "progress", "reset": "progress", "restore": "progress", "optimize": "optimize",
    "validate": "grading", "new": "grading",
}


class DrillGroup(TyperGroup):
    """Commands in COMMANDS order; each description whole (wrapped, never cut with '...');
    every command runs inside the one error edge (trainer.cli.errors)."""

    def invoke(self, ctx: Context) -> Any:
        # in a contextvars context of its own, as in a fresh process: what one command noted
        # (trainer.store.notices: each notice said once per command) is neither inherited nor kept
        return contextvars.Context().run(self._invoke, ctx)

    def _invoke(self, ctx: Context) -> Any:
        with domain_errors():
            return super().invoke(ctx)

    def list_commands(self, ctx: Context) -> list[str]:
        names = list(self.commands)
        rank = {name: i for i, name in enumerate(COMMANDS)}
        return sorted(names, key=lambda n: (rank.get(n, len(rank)), names.index(n)))

    def format_commands(self, ctx: Context, formatter: HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, short_help(cmd)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def short_help(cmd: object) -> str:
    """A command's first paragraph, whole, on one logical line (the formatter wraps it)."""
    text = getattr(cmd, "short_help", None) or getattr(cmd, "help", None) or ""
    return " ".join(text.split("\n\n")[0].split())


app = typer.Typer(
    name="drill",
    cls=DrillGroup,
    help="A terminal trainer for the tensor-shape questions of ML coding interviews.",
    no_args_is_help=False,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    # help wraps to the terminal it lands on, also through a pipe (`drill --help | less`)
    # `-h` is `--help` on every command (child contexts inherit help_option_names)
    context_settings={"terminal_width": terminal_width(), "help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        from trainer import __version__

        typer.echo(f"drill {__version__}")
        raise typer.Exit(0)


@app.callback(invoke_without_command=True)
def status(ctx: typer.Context,
           version: bool = typer.Option(False, "--version", "-V", is_eager=True, callback=_print_version,
                                        help="Print the version and exit.")) -> None:
    """A terminal trainer for the tensor-shape questions of ML coding interviews.

    Run with no command for a short status: drills due now, new drills for
    today, the streak and the next suggested command."""
    if ctx.invoked_subcommand is not None:
        return
    from trainer.cli.status import local_now, status_lines

    for line in status_lines(local_now()):
        typer.echo(line)


MAX_SEED = 2**63 - 1  # what the attempt's seed column holds (trainer.store.MAX_SEED, a team session's limit)


def checked_seed(value: int | None) -> int | None:
    """The --seed callback of every command that takes one: a seed the store and a team file can
    hold, refused as a usage problem (exit 2) before anything is graded, so no attempt is lost
    to an overflow after the verdict."""
    if value is not None and not 0 <= value <= MAX_SEED:
        shown = str(value) if len(str(value)) <= 24 else f"{str(value)[:12]}... ({len(str(value))} digits)"
        raise UsageError(f"--seed must be a whole number from 0 to {MAX_SEED}, not {shown}")
    return value


def no_color() -> bool:
    return bool(os.environ.get("NO_COLOR"))


def emit(text: str, output: Path | None, what: str) -> None:
    """Print text to stdout, or write it atomically to output and say so on stderr. A board
    or a report is written to be shared (0644, as team results are), not private."""
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        write_atomically(output, text, mode=0o644)
    except OSError as exc:
        raise DrillError(f"cannot write {printable(output)}: {exc.strerror or exc}") from None
    typer.echo(f"wrote {what} to {printable(output)}", err=True)
