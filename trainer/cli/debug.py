"""`drill debug ID [--trap T] [--seed S]`: a find-the-bug round.

The buffer opens on a correct solution with one of the drill's traps planted in it
(grader.rounds, from `<id>.rounds.yaml` beside the spec), under the drill's
countdown, with its prompt and ledger; `:submit` grades the fixed buffer as any
solution. After the pass the pane says where the bug was and which trap it was,
with the diff (trainer.text.debrief). The attempt counts on the drill's card,
recorded as kind 'debug' with the trap planted.
"""
from __future__ import annotations

import random
from typing import Optional

import typer

import trainer.repl.grading as repl_grading
from grader import rounds
from trainer.cli.app import app, checked_seed
from trainer.cli.catalogue import complete_drill_id, get_spec_or_exit
from trainer.cli.practice import _need_terminal, _outcome_line, _say, _vi_mode
from trainer.cli.timed import open_drill
from trainer.repl.app import ReplOptions


@app.command("debug")
def debug(
    drill_id: str = typer.Argument(..., metavar="ID", help="the drill id, e.g. mha-padding",
                                   autocompletion=complete_drill_id),
    trap: Optional[str] = typer.Option(None, "--trap", help="plant this trap (default: one of the drill's rounds)"),
    seed: Optional[int] = typer.Option(None, "--seed", callback=checked_seed,
                                       help="choose the round and the cases from this seed"),
    vi: Optional[bool] = typer.Option(None, "--vi/--emacs", help="key bindings (default: the vi_mode setting)"),
) -> None:
    """A debug round: a correct solution with one classic mistake planted; find it and fix it
    against the clock."""
    spec = get_spec_or_exit(drill_id)
    planted = rounds.serve(spec.path, spec.id, trap, seed if seed is not None else random.SystemRandom().randrange(1, 10**9))
    _need_terminal()
    grading = repl_grading.open_grading()
    try:
        outcome = open_drill(spec, grading, ReplOptions(mode="solve", seed=seed, vi=_vi_mode(vi),
                                                        label="debug: find the bug", show_reference=False,
                                                        debug=planted))
        _say(_outcome_line(outcome))
    finally:
        grading.close()
