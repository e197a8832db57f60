"""The sitting's state on its own (trainer.repl.state): the counts the commands change and
the outcome a sitting ends with, without a prompt_toolkit application."""
from __future__ import annotations

import pytest

from grader.report import CaseResult, Report, TrapMatch, Verdict
from trainer.repl.state import SittingState

SKELETON = "def f(x):\n    pass\n"
WORK = "def f(x):\n    return x\n"


def wrong(trap: str | None = None) -> Report:
    case = CaseResult("c1", "f", "wrong", "values differ")
    return Report("d", "wrong", [case], trap=TrapMatch(trap, "why") if trap else None)


def passing() -> Report:
    return Report("d", "pass", [CaseResult("c1", "f", "pass")])


def test_a_fresh_sitting_counts_nothing_and_leaves_as_it_was_asked():
    state = SittingState("d", SKELETON, started=100.0)
    out = state.outcome("quit", state.elapsed(130.0), stop=True)
    assert (out.drill, out.status, out.verdict, out.seconds, out.attempts, out.hints) == ("d", "quit", None, 30.0, 0, 0)
    assert out.stop and not out.revealed and out.traps == [] and out.report is None and out.code == ""


def test_each_grade_is_one_attempt_and_keeps_the_last_report_and_its_code():
    state = SittingState("d", SKELETON, started=0.0)
    first, second = wrong("scale-by-d"), wrong()
    assert state.graded(first, "one", 10.0) == Verdict.WRONG
    assert state.graded(second, "two", 20.0) == Verdict.WRONG
    assert state.attempts == 2 and state.results == [first, second] and state.traps == ["scale-by-d"]
    assert not state.passed()
    out = state.outcome("skipped", state.elapsed(25.0))
    assert (out.status, out.verdict, out.attempts, out.report, out.code) == ("skipped", "wrong", 2, second, "two")


def test_the_first_pass_stops_the_clock_at_its_submit_and_stays_passed():
    state = SittingState("d", SKELETON, started=50.0)
    state.graded(passing(), WORK, 40.0)  # submitted 40 s in
    assert state.passed() and state.elapsed(500.0) == 40.0
    state.graded(wrong(), "worse", 60.0)  # a later fail does not undo the pass
    assert state.passed() and state.elapsed(900.0) == 40.0
    for status in ("quit", "skipped", "next", "timeout"):
        out = state.outcome(status, state.elapsed(900.0))
        assert out.status == "passed" and out.verdict == "wrong" and out.attempts == 2


def test_next_without_a_pass_is_a_fail():
    state = SittingState("d", SKELETON, started=0.0)
    state.graded(wrong(), "code", 5.0)
    assert state.outcome("next", 5.0).status == "failed"


def test_hints_count_up_to_the_last_one():
    state = SittingState("d", SKELETON, started=0.0)
    assert [state.hint_shown(2) for _ in range(4)] == [1, 2, 2, 2]
    assert state.outcome("quit", 1.0).hints == 2


def test_a_reveal_before_a_pass_counts_one_failed_attempt_once():
    state = SittingState("d", SKELETON, started=0.0)
    assert state.reveal() is True
    assert state.reveal() is False  # shown again: nothing more counted
    out = state.outcome("skipped", 3.0)
    assert out.revealed and out.attempts == 1 and out.status == "skipped" and out.verdict is None


def test_a_reveal_after_a_pass_counts_nothing():
    state = SittingState("d", SKELETON, started=0.0)
    state.graded(passing(), WORK, 9.0)
    assert state.reveal() is False
    out = state.outcome("quit", 9.0)
    assert not out.revealed and out.attempts == 1 and out.status == "passed"


def test_the_deadline_caps_the_time_and_says_what_is_left():
    state = SittingState("d", SKELETON, started=10.0, deadline=70.0)
    assert state.left(40.0) == 30.0 and state.left(99.0) == 0.0
    assert state.elapsed(40.0) == 30.0 and state.elapsed(99.0) == 60.0  # stops at 0:00
    assert SittingState("d", SKELETON, started=0.0).left(5.0) is None


@pytest.mark.parametrize(("buffer", "submitted", "unsubmitted"), [
    (SKELETON, None, False),  # the untouched skeleton is no work
    (WORK, None, True),  # work, never submitted
    (WORK, WORK, False),  # submitted as it is
    (WORK + "\n\n", WORK, False),  # only blank lines differ
    (WORK.replace("x\n", "x + 1\n"), WORK, True),  # changed since the submit
])
def test_unsubmitted_work(buffer, submitted, unsubmitted):
    state = SittingState("d", SKELETON, started=0.0)
    if submitted is not None:
        state.submitting(submitted)
    assert state.unsubmitted(buffer) is unsubmitted


def test_the_next_drill_is_taken_only_after_a_pass_with_an_offer():
    state = SittingState("d", SKELETON, started=0.0)
    state.offer_next(("mha-padding (due)", "mha-padding"))
    assert state.chose_next() is False  # no pass yet
    state.graded(passing(), WORK, 5.0)
    assert state.chose_next() is True
    assert state.outcome("next", 5.0).next_drill == "mha-padding"
    none_offered = SittingState("d", SKELETON, started=0.0)
    none_offered.graded(passing(), WORK, 5.0)
    none_offered.offer_next(None)
    assert none_offered.chose_next() is False and none_offered.outcome("next", 5.0).next_drill is None


# ------------------------------------------------- the commands on the narrow screen


class PlainScreen:
    """Only what the commands' Screen protocol (trainer.repl.actions) asks for: no
    prompt_toolkit application behind it."""

    def __init__(self, text: str):
        from prompt_toolkit.document import Document

        from trainer.repl.code import CodeBuffer

        self.buffer = CodeBuffer(document=Document(text), multiline=True)
        self.shown: list[str] = []
        self.said: list[str] = []
        self.finished: list[tuple[str, bool]] = []

    def show(self, fragments, remake=None) -> None:
        self.shown.append("".join(text for _, text in fragments))

    def say(self, message: str) -> None:
        self.said.append(message)

    def redraw(self) -> None:
        pass

    def columns(self) -> int:
        return 100

    def background(self, coroutine) -> object:
        coroutine.close()
        return None

    def finish(self, status: str, stop: bool = False) -> None:
        self.finished.append((status, stop))


def test_the_commands_need_only_the_state_and_the_narrow_screen(catalogue):
    from datetime import datetime, timezone

    from trainer.clock import FakeClock
    from trainer.repl.actions import DrillCommands, Setup
    from trainer.repl.grading import InProcessGrading
    from trainer.repl.jobs import Jobs
    from trainer.repl.question import Questions
    from trainer.repl.state import ReplOptions

    spec = catalogue.get("masked-mean")
    clock = FakeClock()
    recorded = []
    state = SittingState(spec.id, spec.skeleton(), clock.monotonic())
    screen = PlainScreen(spec.skeleton().replace("pass", "return x"))
    questions = Questions(lambda: None)
    jobs = Jobs(InProcessGrading(), redraw=lambda: None, background=screen.background, say=screen.say,
                asking=lambda: questions.question is not None, run_command=lambda name, arg: None)
    commands = DrillCommands(Setup(spec, ReplOptions(), InProcessGrading(), clock, datetime.now(timezone.utc),
                                   recorded.append, None, lambda *a: None), state, screen, jobs, questions)
    commands.cmd_hint()
    assert state.hints == 1 and screen.shown[-1].startswith(f"hint 1/{len(spec.hints)}: ")
    clock.advance(30)
    commands.cmd_solution()
    assert questions.question is not None and not state.revealed  # asked first
    questions.press("y")
    assert state.revealed and state.attempts == 1 and screen.shown[-1].startswith("Reference solution")
    [attempt] = recorded
    assert attempt.revealed and attempt.verdict == "wrong" and attempt.hints == 1 and attempt.seconds == 30
    commands.cmd_quit()  # unsubmitted work: asks
    questions.press("y")
    assert screen.finished == [("quit", True)]
    assert state.outcome("quit", state.elapsed(clock.monotonic())).revealed
