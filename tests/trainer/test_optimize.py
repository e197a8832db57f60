"""`drill optimize`: a simulated person with known, non-default FSRS parameters
(about 1000 reviews) gets a fit that beats the defaults on held-out reviews; too
few reviews and missing extras are one clear message that changes nothing."""
from __future__ import annotations

import json
import random
import sys
from datetime import datetime, timedelta, timezone

import pytest
from fsrs import Card, Rating, Scheduler
from fsrs.scheduler import DEFAULT_PARAMETERS
from typer.testing import CliRunner

from trainer.schedule.optimizing import NotEnoughReviews, Point, fit, needed, scored
from trainer.store import PARAMETERS_KEY, open_store

# A forgetful person: far lower initial stabilities and slower growth than fsrs's defaults.
TRUE_PARAMETERS = (0.1, 0.25, 0.6, 2.0) + tuple(DEFAULT_PARAMETERS[4:8]) + (0.9,) + tuple(DEFAULT_PARAMETERS[9:])


def simulate(true_parameters=TRUE_PARAMETERS, drills: int = 40, per_drill: int = 25, seed: int = 7) -> list[Point]:
    """The app schedules with the defaults (reviews a day apart at least, as daily warm-ups do);
    the person recalls with the probability the true parameters give, and rates accordingly."""
    rng = random.Random(seed)
    app_scheduler = Scheduler(enable_fuzzing=False)
    truth = Scheduler(parameters=true_parameters, enable_fuzzing=False)
    t0 = datetime(2024, 1, 1, 9, tzinfo=timezone.utc)
    points = []
    for d in range(drills):
        at = t0 + timedelta(days=d % 20, hours=rng.random() * 8)
        seen, memory = Card(), Card()
        for i in range(per_drill):
            if i and rng.random() > truth.get_card_retrievability(memory, at):
                rating = Rating.Again
            else:
                rating = rng.choice([Rating.Good, Rating.Good, Rating.Hard, Rating.Easy if i else Rating.Again])
            points.append(Point(f"drill-{d}", int(rating), at, rng.randint(20_000, 300_000)))
            seen, _ = app_scheduler.review_card(seen, rating, at)
            memory, _ = truth.review_card(memory, rating, at)
            at = max(seen.due, at + timedelta(days=1)).replace(hour=9) + timedelta(minutes=rng.randint(0, 600))
    return points


def _store_reviews(points: list[Point]) -> None:
    with open_store() as store:
        with store._writing() as conn:
            conn.executemany("INSERT INTO review_logs(attempt_id, drill, rating, reviewed_at, duration_ms) "
                             "VALUES (NULL, ?, ?, ?, ?)",
                             [(p.drill, p.rating, p.at.isoformat(timespec="microseconds"), p.duration_ms)
                              for p in points])


@pytest.fixture(scope="module")
def app():
    from trainer.cli import _register, app

    _register()
    return app


@pytest.mark.slow
def test_the_fit_beats_the_defaults_on_held_out_reviews_of_a_simulated_person(app, monkeypatch):
    import fsrs.optimizer

    # One epoch instead of fsrs's five keeps this test at seconds; bench/optimize_sim.py runs
    # the real five and prints the figures.
    monkeypatch.setattr(fsrs.optimizer, "num_epochs", 1)
    points = simulate()
    assert len(points) == 1000 and len(scored(points)) >= needed()
    _store_reviews(points)
    result = CliRunner().invoke(app, ["optimize", "--retention"])
    assert result.exit_code == 0, result.output
    [advice] = [line for line in result.output.splitlines() if line.startswith("Optimal desired retention")]
    assert 0.7 <= float(advice.split()[3]) <= 0.95 and "drill settings retention" in advice
    losses = {line.split()[0]: float(line.split()[-1]) for line in result.output.splitlines()
              if line.startswith("  ") and line.split()[-1][0].isdigit()}
    assert losses["new"] < losses["default"]
    assert "Kept the new fit" in result.output
    with open_store() as store:
        kept = store.fitted()
        assert kept is not None and kept["loss_fitted"] < kept["loss_default"]
        assert tuple(kept["parameters"]) != tuple(DEFAULT_PARAMETERS)
        assert store.scheduler_config()[1] == tuple(kept["parameters"])   # it schedules from now on
    reset = CliRunner().invoke(app, ["optimize", "--reset"])
    assert reset.exit_code == 0 and "Back to fsrs's default parameters" in reset.output
    with open_store() as store:
        assert store.fitted() is None and store.scheduler_config()[1] is None


def test_too_few_reviews_says_how_many_more_and_changes_nothing(app):
    points = simulate(drills=4, per_drill=10)
    _store_reviews(points)
    have = len(scored(points))
    result = CliRunner().invoke(app, ["optimize"], env={"COLUMNS": "80"})
    assert result.exit_code == 0  # too early to fit is not a failure
    from trainer.schedule.optimizing import PARTIAL_MINIMUM

    assert all(len(line) <= 80 for line in result.output.splitlines())  # folded to the terminal, not one long line
    output = " ".join(result.output.split())
    assert f"you have {have}, so {PARTIAL_MINIMUM - have} more are needed" in output
    assert f"the full fit, {needed()}" in output
    with open_store() as store:
        assert store.fitted() is None
    with pytest.raises(NotEnoughReviews):
        fit(points)


def test_a_broken_install_is_not_hidden(app, monkeypatch):
    """pandas and tqdm are main dependencies: without one the import error surfaces, and
    nothing is fitted or stored."""
    _store_reviews(simulate())
    monkeypatch.setitem(sys.modules, "pandas", None)   # `import pandas` now raises ImportError
    monkeypatch.delitem(sys.modules, "fsrs.optimizer", raising=False)  # imported afresh, without pandas
    result = CliRunner().invoke(app, ["optimize"])
    assert result.exit_code == 1
    assert isinstance(result.exception, ImportError)
    with open_store() as store:
        assert store.fitted() is None


def test_stored_parameters_are_validated(app):
    with open_store() as store:
        with pytest.raises(ValueError, match="21 numbers"):
            store.set_setting(PARAMETERS_KEY, {"parameters": [1, 2, 3]})
        with pytest.raises(ValueError, match="w0 must be"):
            store.set_setting(PARAMETERS_KEY, {"parameters": [500.0] + list(DEFAULT_PARAMETERS[1:])})
        # a hand-broken value in the file falls back to the defaults instead of failing
        with store._writing() as conn:
            conn.execute("INSERT INTO settings VALUES (?, ?)", (PARAMETERS_KEY, json.dumps({"parameters": "x"})))
        assert store.fitted() is None and store.scheduler_config()[1] is None


# ------------------------------------------------------------ the partial fit (fewer reviews)

# A person whose first reviews fade faster than fsrs's defaults say, and is otherwise as fsrs assumes.
FIRST_ONLY = (0.1, 0.25, 0.6, 2.0) + tuple(DEFAULT_PARAMETERS[4:])


def test_with_fewer_reviews_only_the_initial_stabilities_are_fitted_and_judged_on_held_out_reviews():
    from trainer.schedule.optimizing import PARTIAL_MINIMUM, first_ratings, log_loss

    points = simulate(FIRST_ONLY, drills=40, per_drill=8, seed=8)
    assert PARTIAL_MINIMUM <= len(scored(points)) < needed()
    result = fit(points)
    assert result.partial
    # the simulated person never begins with Easy, so w3 has no data and is not fitted
    assert first_ratings(points)[3] == 0 and result.fitted == (0, 1, 2)
    assert result.parameters[3:] == tuple(DEFAULT_PARAMETERS[3:])
    # each fitted stability moves from fsrs's default toward the person's true one
    for i in result.fitted:
        assert abs(result.parameters[i] - FIRST_ONLY[i]) < abs(DEFAULT_PARAMETERS[i] - FIRST_ONLY[i])
    # the losses are the held-out ones, recomputed here the same way
    assert result.loss_fitted == log_loss(points, result.parameters, result.held_out_from)[0]
    assert result.loss_default == log_loss(points, DEFAULT_PARAMETERS, result.held_out_from)[0]


def test_the_partial_fit_says_what_it_fitted_and_keeps_it_only_when_it_wins(app):
    points = simulate(FIRST_ONLY, drills=40, per_drill=8, seed=8)
    _store_reviews(points)
    result = CliRunner().invoke(app, ["optimize"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert f"A partial fit: {len(scored(points))} scored reviews, fewer than the {needed()}" in out
    assert "only w0, w1, w2 were fitted: the stability after a first Again ("  in out
    assert "The other parameters stay fsrs's defaults." in out
    losses = {line.split()[0]: float(line.split()[-1]) for line in out.splitlines()
              if line.startswith("  ") and line.split()[-1][0].isdigit()}
    with open_store() as store:
        kept = store.fitted()
    if losses["new"] < losses["default"]:
        assert "Kept the new fit" in out and kept is not None and kept["fitted"] == ["w0", "w1", "w2"]
        assert tuple(kept["parameters"][3:]) == tuple(DEFAULT_PARAMETERS[3:])
    else:
        assert "The new fit is not better; nothing changed" in out and kept is None


def test_too_few_first_reviews_for_any_rating_is_said_plainly(app):
    from trainer.schedule.optimizing import MIN_FIRSTS, PARTIAL_MINIMUM

    points = simulate(FIRST_ONLY, drills=6, per_drill=25, seed=3)  # many reviews, few drills
    assert len(scored(points)) >= PARTIAL_MINIMUM
    with pytest.raises(NotEnoughReviews, match=f"at least {MIN_FIRSTS} drills that began with the same rating"):
        fit(points)
    _store_reviews(points)
    result = CliRunner().invoke(app, ["optimize"])
    assert result.exit_code == 0 and "1 began with Again, 1 began with Hard, 4 began with Good" in " ".join(
        result.output.split())
    with open_store() as store:
        assert store.fitted() is None
