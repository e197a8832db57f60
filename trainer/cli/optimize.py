"""`drill optimize`: fit the scheduler to the person's own reviews (trainer.schedule.optimizing).

Prints the held-out log loss of the default parameters (and of the fitted ones in
use, if any) and of the new fit; keeps the new fit in settings only when it is
better. With fewer reviews than the full fit needs it fits only w0-w3 and says
so (trainer.schedule.optimizing). `--reset` returns to fsrs's defaults; `--retention` also computes the
desired retention that costs least time per remembered drill.
"""
from __future__ import annotations

from datetime import datetime

import typer

from trainer.cli.app import app
from trainer.schedule.optimizing import RATING_WORDS, NotEnoughReviews, Point, fit, needed
from trainer.clock import utc_now
from trainer.store import PARAMETERS_KEY, open_store


def _say(text: str) -> None:
    from trainer.text.fold import fold_line, terminal_width

    typer.echo("\n".join(fold_line(text, terminal_width(), more="")))


def _stamp(moment: datetime) -> str:
    return moment.astimezone().strftime("%Y-%m-%d")


@app.command("optimize")
def optimize(
    reset: bool = typer.Option(False, "--reset", help="forget fitted parameters; use fsrs's defaults"),
    retention: bool = typer.Option(False, "--retention", help="also compute the optimal desired retention"),
) -> None:
    """Fit FSRS's parameters to your review history; keep them only if they predict better."""
    with open_store(create=False) as store:
        fitted = store.fitted()
        if reset:
            if fitted is None:
                typer.echo("Already using fsrs's default parameters; nothing changed.")
            else:
                store.unset_setting(PARAMETERS_KEY)
                typer.echo(f"Back to fsrs's default parameters (the fit of "
                           f"{fitted.get('fitted_at', 'an unknown date')[:10]} is forgotten).")
            return
        points = [Point(r.drill, r.rating, r.reviewed_at, r.duration_ms) for r in store.reviews()]
        current_retention = store.settings().retention
    try:
        result = fit(points, fitted["parameters"] if fitted else None, retention=retention)
    except NotEnoughReviews as exc:  # not a failure: too early to fit; said folded to the terminal's width
        _say(str(exc))
        return
    if result.partial:
        names = ", ".join(f"w{i}" for i in result.fitted)
        said = [f"{RATING_WORDS[i]} ({result.firsts[i]} drills)" for i in result.fitted]
        after = said[0] if len(said) == 1 else ", ".join(said[:-1]) + " or " + said[-1]
        typer.echo(f"A partial fit: {result.trained_on + result.held_out} scored reviews, fewer than the "
                   f"{needed()} the full fit needs, so only {names} were fitted: the stability after a first "
                   f"{after}. The other parameters stay fsrs's defaults.")
    typer.echo(f"Fitted on {result.trained_on} reviews; scored on the {result.held_out} later reviews "
               f"held out (from {_stamp(result.held_out_from)}). Log loss, lower is better:")
    typer.echo(f"  default parameters   {result.loss_default:.5f}")
    if result.loss_current is not None:
        typer.echo(f"  fitted in use now    {result.loss_current:.5f}  (fitted {str((fitted or {}).get('fitted_at'))[:10]})")
    typer.echo(f"  new fit              {result.loss_fitted:.5f}")
    if result.better:
        value = {"parameters": list(result.parameters), "fitted_at": utc_now().isoformat(),
                 "loss_default": round(result.loss_default, 6), "loss_fitted": round(result.loss_fitted, 6),
                 "trained_on": result.trained_on, "held_out": result.held_out,
                 "fitted": [f"w{i}" for i in result.fitted] if result.partial else "all"}
        with open_store() as store:
            store.set_setting(PARAMETERS_KEY, value)
        gain = result.best_before - result.loss_fitted
        chance = (f" A difference this small on {result.held_out} held-out reviews may be chance."
                  if gain < 0.001 else "")
        typer.echo(f"Kept the new fit ({gain:.5f} lower on the held-out reviews; settings: fsrs_parameters); "
                   f"it schedules your next reviews. `drill optimize --reset` returns to the defaults.{chance}")
    else:
        kept = "the fitted parameters in use" if fitted else "fsrs's default parameters"
        typer.echo(f"The new fit is not better; nothing changed ({kept} stay).")
    if retention:
        if result.retention is None:
            typer.echo("The optimal retention needs 512 timed reviews; not computed.")
        else:
            typer.echo(f"Optimal desired retention: {result.retention:.2f} (now {current_retention:.2f}). "
                       f"Set it with `drill settings retention {result.retention:.2f}`.")

