"""Warm-up and mock flows with an injected clock; quick-fire normalisation."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

from trainer.clock import FakeClock
from trainer.practice.flows import (DrillItem, ItemResult, Mock, QuizItem, Warmup, choose_mock_drills, plan_warmup,
                              score, weakness)

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)


def test_warmup_puts_due_reviews_first_then_new_with_quiz_mixed_in():
    items = plan_warmup(due=["masked-mean", "mha-padding"], new=["patchify", "masked-mean"],
                        quiz={"masked-mean": range(3), "mha-padding": range(3), "patchify": []}, count=3, seed=7)
    drills = [i for i in items if isinstance(i, DrillItem)]
    assert [(d.drill, d.reason) for d in drills] == [("masked-mean", "review"), ("mha-padding", "review"),
                                                     ("patchify", "new")]
    assert isinstance(items[0], QuizItem) and items[0].drill == "masked-mean" and 0 <= items[0].index < 3
    assert items == plan_warmup(["masked-mean", "mha-padding"], ["patchify", "masked-mean"],
                                {"masked-mean": range(3), "mha-padding": range(3), "patchify": []}, 3, seed=7)  # seeded
    assert len(plan_warmup(["a", "b", "c"], [], {}, count=2, seed=1)) == 2


def test_warmup_interleaves_topics_and_keeps_the_due_order_otherwise():
    topics = {"a1": "attention", "a2": "attention", "a3": "attention", "n1": "norms", "n2": "norms", "m1": "moe"}
    items = plan_warmup(due=["a1", "a2", "a3", "n1", "n2"], new=["m1"], quiz={}, count=4, seed=1,
                        topics=topics)
    drills = [(i.drill, i.reason) for i in items if isinstance(i, DrillItem)]
    # one attention drill, then the first of another topic, back and forth; reviews before new drills
    assert drills == [("a1", "review"), ("n1", "review"), ("a2", "review"), ("n2", "review")]
    items = plan_warmup(due=["a1", "a2", "a3"], new=["m1"], quiz={}, count=3, seed=1, topics=topics)
    assert [i.drill for i in items] == ["a1", "a2", "a3"]  # due reviews come first: no new drill displaces one
    items = plan_warmup(due=["a1", "a2"], new=["m1"], quiz={}, count=3, seed=1, topics=topics)
    # one topic due: its drills in due order, the new drill of another topic placed between them
    assert [i.drill for i in items] == ["a1", "m1", "a2"]
    # without topics the due order stands
    assert [i.drill for i in plan_warmup(["a1", "a2", "n1"], [], {}, count=3, seed=1)] == ["a1", "a2", "n1"]


def test_warmup_with_nothing_due_still_asks_quick_fire_questions():
    items = plan_warmup([], [], {"a": [0, 1], "b": [0], "c": []}, count=5, seed=1, fallback=["a", "b", "c"])
    assert {i.drill for i in items} == {"a", "b"} and all(isinstance(i, QuizItem) for i in items)


def test_a_warm_up_asks_no_question_that_points_back_to_one_not_asked():
    """outer-typo's second question asks about "that result": the first's; a warm-up asks one alone."""
    from types import SimpleNamespace

    from trainer.practice.flows import askable_alone

    quiz = [SimpleNamespace(q="What shape does (N,) + (N, 1) give?"),
            SimpleNamespace(q="How much memory does that result take at N = 100000?"),
            SimpleNamespace(q="Which axis does mean(0) remove?")]
    assert askable_alone(quiz) == [0, 2]
    for seed in range(20):
        items = plan_warmup(["a"], [], {"a": askable_alone(quiz)}, count=1, seed=seed)
        assert isinstance(items[0], QuizItem) and items[0].index in (0, 2)
    assert askable_alone(quiz[1:2]) == [0]  # a quiz of nothing else still asks its one question


def test_warmup_flow_times_items_and_summarises():
    clock = FakeClock()
    items = [QuizItem("a", 0), DrillItem("a", "review"), DrillItem("b", "new"), DrillItem("c", "new")]
    flow = Warmup(items, clock, minutes=10)
    assert flow.queue.next() == QuizItem("a", 0)
    clock.advance(20)
    flow.queue.add(ItemResult(QuizItem("a", 0), "right", 20))
    assert flow.queue.next() == DrillItem("a", "review")
    clock.advance(200)
    flow.queue.add(ItemResult(DrillItem("a", "review"), "passed", 200, attempts=1))
    assert flow.queue.next() == DrillItem("b", "new")
    clock.advance(400)  # 620 s in: over the 10 minutes while b is open; b is still finished
    flow.queue.add(ItemResult(DrillItem("b", "new"), "failed", 400, attempts=2))
    assert flow.queue.next() is None  # no new item after the time is up
    summary = flow.summary(due_tomorrow=["a"])
    assert (summary.passed, summary.drills, summary.quiz_right, summary.quiz_total) == (1, 2, 1, 1)
    assert summary.not_reached == ["c"] and summary.time_up and summary.seconds == 620
    text = "\n".join(summary.lines())
    assert "Warm-up done in 10:20 (time is up)" in text and "b" in text and "failed" in text
    assert "Due tomorrow: 1 (a)" in text and "quick-fire: 1/1 right" in text
    assert summary.to_dict()["done"][0] == {"drill": "a", "status": "passed", "seconds": 200, "variant": {},
                                             "debug": False}


def test_warmup_stops_when_asked():
    flow = Warmup([DrillItem("a", "new"), DrillItem("b", "new")], FakeClock())
    flow.queue.add(ItemResult(flow.queue.next(), "quit", 5), stop=True)
    assert flow.queue.next() is None


def test_mock_countdown_does_not_pause():
    clock = FakeClock()
    mock = Mock(["a", "b", "c"], minutes=20, seed=42, clock=clock)
    assert mock.queue.left() == 1200
    assert mock.queue.next() == "a"
    clock.advance(500)
    mock.queue.add(ItemResult(DrillItem("a", "mock"), "passed", 500, attempts=1))
    clock.advance(30)  # between drills the clock keeps running
    assert mock.queue.left() == 670
    assert mock.queue.next() == "b"
    clock.advance(700)
    mock.queue.add(ItemResult(DrillItem("b", "mock"), "timeout", 700, attempts=2, traps=("scale-by-d",)))
    assert mock.queue.over() and mock.queue.next() is None
    report = mock.report({"a": 420, "b": 300, "c": 180})
    assert (report.passed, report.total, report.seed) == (1, 3, 42)
    assert [r.status for r in report.rows] == ["passed", "timeout", "not reached"]
    assert report.mistakes() == ["b: scale-by-d"]
    assert report.seconds == 1200
    text = "\n".join(report.lines())
    assert "1/3 passed" in text and "seed 42" in text and "Mistakes made: b: scale-by-d" in text
    assert report.to_dict()["drills"][1]["traps"] == ["scale-by-d"]


def test_mock_score():
    from trainer.practice.flows import MockRow

    fast = MockRow("a", "passed", 100, 400, 1, ())
    slow = MockRow("b", "passed", 500, 400, 3, ())
    failed = MockRow("c", "failed", 400, 400, 2, ())
    assert score([fast]) == 100
    assert score([slow]) == 70
    assert score([fast, failed]) == 50
    assert score([]) == 0


def test_mock_covers_topics_and_favours_weak_drills():
    drills = [("a1", "attention"), ("a2", "attention"), ("r1", "ragged"), ("r2", "ragged"),
              ("b1", "broadcasting"), ("b2", "broadcasting")]
    weak = {"a1": 0.0, "a2": 1.0, "r1": 0.1, "r2": 0.1, "b1": 0.0, "b2": 0.0}
    chosen = choose_mock_drills(drills, weak, 3, seed=5)
    assert len({dict(drills)[d] for d in chosen}) == 3  # one per topic before any repeat
    assert chosen[0].startswith("a")  # the weakest topic comes first
    assert chosen == choose_mock_drills(drills, weak, 3, seed=5)  # the seed decides
    picks = [choose_mock_drills(drills, weak, 1, seed=s)[0] for s in range(200)]
    assert picks.count("a2") > picks.count("a1") * 3  # the weak drill is favoured
    assert len(choose_mock_drills(drills, weak, 10, seed=1)) == 6


def test_weakness():
    assert weakness(0, 0, None, NOW) == 0.5
    assert weakness(4, 4, NOW + timedelta(days=3), NOW) == 0.0
    assert weakness(4, 1, NOW - timedelta(days=1), NOW, lapses=2) == 1.0


# ------------------------------------------------------------- CLI wiring


class _NoGrading:
    def close(self) -> None:
        pass


def _cli(monkeypatch, outcomes):
    """The practice commands with the REPL, grader and prompts replaced by stand-ins."""
    from typer.testing import CliRunner

    import trainer.cli as cli
    from trainer.cli import practice
    from trainer.repl import grading, quickfire
    from trainer.repl.app import DrillOutcome
    from trainer.repl.quickfire import QuizResult

    cli._register()
    seen = []

    def fake_drill(spec, grading_, options, **_):
        seen.append((spec.id, options))
        status = outcomes.get(spec.id, "passed")
        return DrillOutcome(spec.id, status, "pass" if status == "passed" else "wrong", 100.0, 1,
                            traps=[] if status == "passed" else ["some-trap"])

    def fake_ask(drill, quiz, **kw):
        return QuizResult(drill, quiz.q, quiz.a, quiz.a, quiz.why, True, 3.0)

    monkeypatch.setattr(practice, "_need_terminal", lambda: None)
    monkeypatch.setattr(practice, "_run_drill", fake_drill)
    monkeypatch.setattr(practice, "_go_on", lambda *_, **__: True)
    monkeypatch.setattr(practice, "_ready", lambda *_, **__: True)
    monkeypatch.setattr(grading, "open_grading", lambda: _NoGrading())
    monkeypatch.setattr(quickfire, "ask", fake_ask)
    return CliRunner(), cli.app, seen


def test_mock_command_locks_commands_prints_the_seed_and_stores_the_report(monkeypatch):
    from trainer.store import open_store

    runner, app, seen = _cli(monkeypatch, {})
    result = runner.invoke(app, ["mock", "--count", "2", "--minutes", "20", "--seed", "5", "--no-followups"])
    assert result.exit_code == 0, result.output
    assert "seed 5" in result.output and "Mock interview: 2/2 passed" in result.output
    assert len(seen) == 2 and len({s[0] for s in seen}) == 2
    options = seen[0][1]
    assert options.mode == "mock" and options.locked == {"hint", "try", "solution"} and options.seed == 5
    assert options.deadline is not None and not options.show_reference
    with open_store() as store:
        [session] = store.sessions()
    assert session.kind == "mock" and session.meta["seed"] == 5 and session.summary["passed"] == 2


def test_warmup_command_runs_items_and_summarises(monkeypatch):
    from trainer.store import open_store

    runner, app, seen = _cli(monkeypatch, {})
    result = runner.invoke(app, ["warmup", "--count", "2"])
    assert result.exit_code == 0, result.output
    assert "Warm-up: 2 drill(s)" in result.output and "Warm-up done in" in result.output
    assert "drills passed: 2/2" in result.output and "Due tomorrow" in result.output
    assert [o.mode for _, o in seen] == ["warmup", "warmup"] and seen[0][1].in_flow
    with open_store() as store:
        [session] = store.sessions()
    assert session.kind == "warmup" and session.summary["drills"] == 2


def test_mock_summary_shows_and_stores_each_drills_verdict_case_code_and_the_formula(monkeypatch):
    from grader.report import CaseResult, Report
    from trainer.cli import practice
    from trainer.repl.app import DrillOutcome
    from trainer.store import open_store

    runner, app, seen = _cli(monkeypatch, {})

    def fake_drill(spec, grading_, options, **_):
        seen.append(spec.id)
        case = CaseResult("fp32-basic", "f", "wrong", "values differ at 3 of 8 positions", {"B": 2})
        report = Report(spec.id, "wrong", [case, CaseResult("ok", "f", "pass")])
        return DrillOutcome(spec.id, "timeout", "wrong", 90.0, 1, report=report, code="def f(x):\n    return x\n")

    monkeypatch.setattr(practice, "_run_drill", fake_drill)
    result = runner.invoke(app, ["mock", "--count", "1", "--minutes", "0.5", "--seed", "5"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "Mock interview: 0/1 passed, score 0/100" in out and "Score: each drill is worth" in out
    assert "WRONG  1/2 cases passed" in out and "fp32-basic" in out and "values differ" in out
    assert "code submitted:" in out and "    |     return x" in out
    with open_store() as store:
        [session] = store.sessions()
    [drill] = session.summary["drills"]
    assert session.summary["score_formula"].startswith("each drill is worth an equal share of 100")
    assert drill["verdict"] == "wrong" and drill["failing_case"] == "fp32-basic" and "return x" in drill["code"]


def test_a_quick_fire_question_left_unanswered_is_not_scored():
    clock = FakeClock()
    flow = Warmup([QuizItem("a", 0), DrillItem("a", "review")], clock, minutes=10)
    flow.queue.add(ItemResult(flow.queue.next(), "unanswered", 3), stop=True)  # Ctrl-C at the prompt
    summary = flow.summary(due_tomorrow=[])
    assert (summary.quiz_right, summary.quiz_total, summary.quiz_unanswered) == (0, 0, 1)
    text = "\n".join(summary.lines())
    assert "0/1" not in text and "1 question left unanswered" in text


def test_the_warm_up_summary_says_later_today_when_something_is_due_now_too():
    from trainer.cli.practice import _later_today_lines
    from trainer.schedule.due import Agenda

    agenda = Agenda(NOW, due=("gqa",), later_today=(("masked-mean", NOW + timedelta(hours=3)),), tomorrow=(),
                    new=(), new_limit=3, introduced_today=0)
    lines = _later_today_lines(agenda)
    assert lines[0] == "Due now: 1 (gqa)"
    assert lines[1].startswith("Back later today: masked-mean at ")


def test_warmup_and_mock_serve_a_variant_once_the_default_is_passed(monkeypatch):
    """A review of a drill whose default was passed is served under a variant (trainer.practice.variants);
    a first meeting is the default."""
    from datetime import datetime, timedelta, timezone

    from trainer.cli import practice
    from trainer.repl.app import DrillOutcome
    from trainer.store import NewAttempt, open_store

    runner, app, _ = _cli(monkeypatch, {})
    served: list[tuple[str, dict]] = []

    def fake_drill(spec, grading_, options, **_):
        served.append((spec.id, dict(spec.variant)))
        return DrillOutcome(spec.id, "skipped")

    monkeypatch.setattr(practice, "_run_drill", fake_drill)
    result = runner.invoke(app, ["mock", "--count", "1", "--topic", "attention", "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert served[-1][1] == {}  # never met: the default
    then = datetime.now(timezone.utc) - timedelta(days=12)
    with open_store(clock=lambda: then) as store:
        store.record_attempt(NewAttempt("mha-padding", "solve", then, 300, "pass", target_seconds=420))
    # no debug round this time (one review in four would be one, drawn from the clock, under the default)
    assert runner.invoke(app, ["settings", "debug_share", "0"]).exit_code == 0
    result = runner.invoke(app, ["warmup", "--count", "1", "--topic", "attention"])
    assert result.exit_code == 0, result.output
    assert served[-1][0] == "mha-padding" and served[-1][1]  # the due review, under a non-default variant
    result = runner.invoke(app, ["mock", "--count", "8", "--topic", "attention", "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert dict(served[1:])["mha-padding"] != {} and all(v == {} for d, v in served[2:] if d != "mha-padding")


def test_the_summaries_say_which_variant_each_drill_was_served():
    clock = FakeClock()
    flow = Warmup([DrillItem("a", "review"), DrillItem("b", "new")], clock)
    flow.queue.next()
    flow.queue.add(ItemResult(DrillItem("a", "review"), "failed", 60, variant={"mask": "pad"}))
    flow.queue.next()
    flow.queue.add(ItemResult(DrillItem("b", "new"), "passed", 60))
    summary = flow.summary([])
    assert [d["variant"] for d in summary.to_dict()["done"]] == [{"mask": "pad"}, {}]
    lines = summary.lines()
    assert any(line.split()[:2] == ["a", "failed"] and line.endswith("variant mask=pad") for line in lines)
    assert not any("variant" in line for line in lines if line.split()[:1] == ["b"])
    mock = Mock(["a"], 10, 1, clock)
    mock.queue.next()
    mock.queue.add(ItemResult(DrillItem("a", "mock"), "failed", 60, verdict="wrong", variant={"layout": "tbd"}))
    report = mock.report({"a": 300.0})
    assert report.to_dict()["drills"][0]["variant"] == {"layout": "tbd"}
    assert "a (variant layout=tbd):" in report.lines()


def test_the_warm_up_summary_says_which_review_came_as_a_debug_round():
    clock = FakeClock()
    flow = Warmup([DrillItem("a", "review", debug=True), DrillItem("b", "review")], clock)
    flow.queue.next()
    flow.queue.add(ItemResult(DrillItem("a", "review", debug=True), "passed", 28))
    flow.queue.next()
    flow.queue.add(ItemResult(DrillItem("b", "review"), "passed", 60))
    summary = flow.summary([])
    assert [d["debug"] for d in summary.to_dict()["done"]] == [True, False]
    lines = summary.lines()
    assert any(line.split()[:2] == ["a", "passed"] and line.endswith("(debug round)") for line in lines)
    assert not any("debug" in line for line in lines if line.split()[:1] == ["b"])


def test_warmup_on_a_topic_says_how_many_drills_of_other_topics_are_due(monkeypatch):
    from datetime import datetime, timedelta, timezone

    from trainer.store import NewAttempt, open_store

    runner, app, seen = _cli(monkeypatch, {})
    long_ago = datetime.now(timezone.utc) - timedelta(days=40)
    with open_store() as store:  # three passes long ago: all three due again today
        for drill in ("gqa", "masked-mean", "pairwise-sqdist"):
            store.record_attempt(NewAttempt(drill, "solve", long_ago, 100, "pass", target_seconds=300))
    result = runner.invoke(app, ["warmup", "--count", "1", "--topic", "attention"])
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "2 drills of other topics are due too (masked-mean, pairwise-sqdist)" in said
    assert "`drill warmup` without --topic takes them" in said
    assert [s for s, _ in seen] == ["gqa"]


def test_the_mock_shows_its_rules_and_starts_the_clock_only_when_the_person_does(monkeypatch):
    from trainer.cli import practice
    from trainer.store import open_store

    runner, app, seen = _cli(monkeypatch, {})
    started = []

    def ready(prompt):
        started.append(prompt)
        assert not seen  # the rules are on screen and no drill has opened: no clock runs yet
        return False  # the person pressed Ctrl-C instead

    monkeypatch.setattr(practice, "_ready", ready)
    result = runner.invoke(app, ["mock", "--count", "2", "--minutes", "20", "--seed", "5"])
    assert result.exit_code == 0, result.output
    words = " ".join(result.output.split())  # wrapped at the runner's terminal width
    assert "The clock does not stop" in words and "No mock started; nothing recorded." in words
    assert started and "Enter: start the 20-minute clock" in started[0] and not seen
    with open_store() as store:
        assert store.sessions() == []
