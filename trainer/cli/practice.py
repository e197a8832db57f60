"""Practice commands: `drill solve`, `warmup`, `mock` and `watch`.

The flows themselves live in trainer.sessions (pure logic) and trainer.repl
(the editor); this module wires them to the store, the grader and the terminal.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Optional

import typer

from trainer.cli.app import app, usage_error
from trainer.cli.catalogue import get_spec_or_exit, load_catalogue_or_exit


def _store_recorder() -> Any:
    """record_attempt through a fresh store handle each time (one transaction per attempt)."""
    from trainer.store import open_store

    def record(**attempt: Any) -> Any:
        with open_store() as store:
            return store.record_attempt(**attempt)

    return record


def _vi_mode(flag: Optional[bool]) -> bool:
    if flag is not None:
        return flag
    from trainer.store import StoreError, open_store

    try:
        with open_store() as store:
            return bool(store.settings().vi_mode)
    except StoreError:
        return False


def _need_terminal() -> None:
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        usage_error("this command needs a terminal; use `drill check ID FILE` to grade a file")


@app.command("solve")
def solve(
    drill_id: str = typer.Argument(..., metavar="ID", help="the drill id, e.g. mha-padding"),
    seed: Optional[int] = typer.Option(None, "--seed", help="case seed (default: a new one per submit)"),
    vi: Optional[bool] = typer.Option(None, "--vi/--emacs", help="key bindings (default: the vi_mode setting)"),
) -> None:
    """The REPL on one drill: write it, :try it, :submit it."""
    spec = get_spec_or_exit(drill_id)
    _need_terminal()
    from trainer.cli.progress import store_errors
    from trainer.paths import drill_home
    from trainer.repl.app import DrillRepl, ReplOptions
    from trainer.repl.grading import open_grading

    with store_errors():
        vi_mode = _vi_mode(vi)
    grading = open_grading()  # the worker starts importing torch now, while the person reads
    try:
        repl = DrillRepl(spec, grading, record=_store_recorder(), home=drill_home(),
                         options=ReplOptions(mode="solve", seed=seed, vi=vi_mode))
        outcome = repl.run()
    finally:
        grading.close()
    typer.echo(_outcome_line(outcome))


def _outcome_line(outcome: Any) -> str:
    from trainer.repl.verdict import mmss

    if outcome.status == "passed":
        return f"{outcome.drill}: passed in {mmss(outcome.seconds)} after {outcome.attempts} submit(s)."
    if outcome.status == "timeout":
        return f"{outcome.drill}: time ran out."
    tail = f" Your buffer is saved as a draft; `drill solve {outcome.drill}` picks it up." \
        if outcome.status in ("quit", "failed", "skipped") else ""
    return f"{outcome.drill}: left after {mmss(outcome.seconds)} ({outcome.attempts} submit(s)).{tail}"
