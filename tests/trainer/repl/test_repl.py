"""The REPL driven through prompt_toolkit's pipe input and a dummy output."""
from __future__ import annotations

from tests.paths import REPO

import asyncio
from pathlib import Path
from typing import Any, Callable

import pytest
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from trainer.repl.app import DrillRepl, ReplOptions
from trainer.clock import FakeClock
from trainer.repl.drafts import Drafts
from trainer.repl.editor import EditResult, edit_text
from trainer.repl.grading import InProcessGrading
from trainer.repl.keys import next_indent
from trainer.text.verdict import plain
from trainer.store import NewAttempt, open_store

DRILLS = REPO / "drills"
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"
CTRL_C, CTRL_Q, CTRL_S = "\x03", "\x11", "\x13"


def solution(drill: str, name: str) -> str:
    return next(DRILLS.glob(f"*/solutions/{drill}/{name}")).read_text(encoding="utf-8")


def paste(text: str) -> str:
    return PASTE_START + text + PASTE_END


async def until(cond: Callable[[], Any], timeout: float = 30.0) -> None:
    waited = 0.0
    while not cond():
        await asyncio.sleep(0.02)
        waited += 0.02
        if waited > timeout:
            raise AssertionError("timed out waiting for the REPL")


def store_recorder() -> Callable[..., Any]:
    def record(attempt: NewAttempt) -> Any:
        with open_store() as store:
            return store.record_attempt(attempt)

    return record


def set_text(repl: DrillRepl, text: str) -> None:
    """Put text in the buffer with the cursor at its end, as after typing it."""
    repl.buffer.set_document(Document(text, len(text)))


def touch(repl: DrillRepl) -> None:
    """A first try: the skeleton with a line of the person's own (an untouched skeleton is no submit)."""
    set_text(repl, repl.skeleton + "\n# a first try\n")


async def leave(repl: DrillRepl, pipe: Any) -> None:
    """:quit, answering yes when it asks about unsubmitted changes."""
    pipe.send_text(":quit\r")
    await until(lambda: repl.question is not None or not repl.app.is_running)
    if repl.question is not None:
        pipe.send_text("y")


def run_repl(spec: Any, grading: Any, home: Path, script: Callable[[DrillRepl, Any], Any], **kw: Any) -> Any:
    """Start the REPL on a pipe, play `script(repl, pipe)` (a coroutine), return the outcome."""

    async def main() -> Any:
        with create_pipe_input() as pipe:
            repl = DrillRepl(spec, grading, home=home, input=pipe, output=DummyOutput(),
                             clock=kw.pop("clock", FakeClock()), **kw)
            task = asyncio.ensure_future(repl.run_async())
            await until(lambda: repl.app.is_running)
            await script(repl, pipe)
            outcome = await asyncio.wait_for(task, 30)
            return repl, outcome

    return asyncio.run(main())


@pytest.fixture
def mha(catalogue):
    return catalogue.get("mha-padding")


@pytest.fixture
def grading(grader):
    return InProcessGrading(grader)


class _IdleGrading:
    """For tests that never grade or trace: keeps them off the real grader (and in the
    fast run), and fails the test if it grades after all."""

    def grade(self, *a: object, **k: object) -> None:
        raise AssertionError("this test grades: give it the `grading` fixture")

    trace = case_hash = smallest = grade

    def close(self) -> None:
        pass

    def cancel(self) -> None:
        pass


@pytest.fixture
def idle_grading():
    return _IdleGrading()


def test_type_submit_see_pass_and_quit(mha, grading, _drill_home):
    clock = FakeClock()

    async def script(repl: DrillRepl, pipe: Any) -> None:
        set_text(repl, "")
        pipe.send_text(paste(solution("mha-padding", "ok_einsum.py")) + "\r")
        clock.advance(200)
        pipe.send_text(":submit\r")
        await until(lambda: repl.state.results)
        text = plain(repl.output)
        assert text.startswith("PASS  8/8 cases · device: pass")  # the spec's 8 cases, the device check apart
        assert "solved in 3:20, target 7:00 (3:40 to spare)" in text
        assert "Back for review" in text
        assert "Reference solution:" in text and "def multi_head_attention" in text
        assert "The trap this drill is about:" in text and "sqrt(dh)" in text
        assert ":submit" not in repl.buffer.text  # the command line left the buffer
        pipe.send_text(":quit\r")

    repl, outcome = run_repl(mha, grading, _drill_home, script, record=store_recorder(), clock=clock)
    assert outcome.status == "passed" and outcome.attempts == 1 and outcome.verdict == "pass"
    with open_store() as store:
        [attempt] = store.attempts()
    assert attempt.mode == "solve" and attempt.verdict == "pass" and attempt.first_try
    assert attempt.seconds == pytest.approx(200) and "def multi_head_attention" in attempt.code
    assert not Drafts(_drill_home).path("mha-padding").exists()  # a pass clears the draft


def test_wrong_verdict_teaches_and_keeps_the_buffer(mha, grading, _drill_home):
    bad = solution("mha-padding", "bad_scale_d_einsum.py")

    async def script(repl: DrillRepl, pipe: Any) -> None:
        set_text(repl, bad)
        pipe.send_text(CTRL_S)
        await until(lambda: repl.state.results)
        text = plain(repl.output)
        assert text.split()[0] in ("WRONG", "ERROR")
        assert "case " in text and "B=" in text and "dh=" in text  # the failing case with its sizes
        flat = " ".join(text.split())  # wrapped to the pane's width
        assert "trap: scale-by-d — matches scaling the scores by sqrt(d) instead of sqrt(dh)" in flat
        assert "spread grows with sqrt(dh)" in flat and "flattens attention" in flat  # the two-line why
        assert "values differ" in text or "RuntimeError" in text
        assert repl.buffer.text == bad
        pipe.send_text(CTRL_Q)
        await until(lambda: repl.question is not None or not repl.app.is_running)

    repl, outcome = run_repl(mha, grading, _drill_home, script, record=store_recorder())
    assert outcome.status == "quit" and outcome.traps == ["scale-by-d"]
    with open_store() as store:
        [attempt] = store.attempts()
    assert attempt.traps == ("scale-by-d",) and attempt.failing_case


def test_try_prints_every_intermediate_shape(mha, grading, _drill_home):
    async def script(repl: DrillRepl, pipe: Any) -> None:
        set_text(repl, solution("mha-padding", "ok_einsum.py"))
        pipe.send_text("\x14")  # Ctrl-T
        await until(lambda: repl.output and not repl.busy)
        text = plain(repl.output)
        assert text.startswith("TRY on the example inputs  B=2 T=3 S=5")
        assert "multi_head_attention(Q: (B, T, d) float32, K: (B, S, d) float32" in text
        assert 'scores = torch.einsum("bthd,bshd->bhts", q, k) / dh ** 0.5' in text
        assert "einsum" in text and "(B, H, T, S)  (2, 4, 3, 5)" in text
        assert ".softmax" in text
        assert "return (B, T, d) float32" in text
        await leave(repl, pipe)

    _, outcome = run_repl(mha, grading, _drill_home, script)
    assert outcome.attempts == 0  # :try is not an attempt


def test_try_names_the_error_line(mha, grading, _drill_home):
    async def script(repl: DrillRepl, pipe: Any) -> None:
        set_text(repl, "def multi_head_attention(Q, K, V, pad_mask, H):\n    s = Q @ K\n    return s\n")
        pipe.send_text(":try\r")
        await until(lambda: repl.output and not repl.busy)
        text = plain(repl.output)
        assert "RuntimeError" in text and "line 2" in text
        await leave(repl, pipe)

    run_repl(mha, grading, _drill_home, script)


def test_quit_asks_with_unsubmitted_changes_and_keeps_a_draft(mha, idle_grading, _drill_home):
    async def script(repl: DrillRepl, pipe: Any) -> None:
        pipe.send_text("x = 1\r:quit\r")
        await until(lambda: repl.question is not None)
        assert "unsubmitted changes" in repl.question.text
        pipe.send_text("n")
        await until(lambda: repl.question is None)
        assert repl.app.is_running and "x = 1" in repl.buffer.text
        pipe.send_text(CTRL_C)
        await until(lambda: repl.question is not None)
        assert "kept as a draft" in repl.question.text
        pipe.send_text("y")

    _, outcome = run_repl(mha, idle_grading, _drill_home, script)
    assert outcome.status == "quit" and outcome.stop
    assert "x = 1" in Drafts(_drill_home).path("mha-padding").read_text()


def test_draft_is_offered_back(mha, idle_grading, _drill_home):
    Drafts(_drill_home).save("mha-padding", "import torch\n# my half-done attempt\n")

    async def script(repl: DrillRepl, pipe: Any) -> None:
        assert repl.question and "Restore your unsubmitted draft" in repl.question.text
        pipe.send_text("y")
        await until(lambda: repl.question is None)
        assert repl.buffer.text == "import torch\n# my half-done attempt\n"
        pipe.send_text(":skip\r")

    _, outcome = run_repl(mha, idle_grading, _drill_home, script)
    assert outcome.status == "skipped"


def test_declined_draft_is_set_aside_not_lost(mha, idle_grading, _drill_home):
    drafts = Drafts(_drill_home)
    drafts.save("mha-padding", "# old work\n")

    async def script(repl: DrillRepl, pipe: Any) -> None:
        pipe.send_text("n")
        await until(lambda: repl.question is None)
        assert repl.buffer.text == mha.skeleton()
        pipe.send_text(":quit\r")

    run_repl(mha, idle_grading, _drill_home, script)
    assert (drafts.folder / "mha-padding.prev.py").read_text() == "# old work\n"


def test_every_change_is_saved_as_a_draft(mha, idle_grading, _drill_home):
    async def script(repl: DrillRepl, pipe: Any) -> None:
        pipe.send_text("y = 2")
        await until(lambda: "y = 2" in repl.buffer.text)
        assert "y = 2" in Drafts(_drill_home).path("mha-padding").read_text()
        repl._hangup()  # what SIGHUP runs

    _, outcome = run_repl(mha, idle_grading, _drill_home, script)
    assert outcome.stop


def test_hint_shapes_help_and_auto_indent(mha, idle_grading, _drill_home):
    async def script(repl: DrillRepl, pipe: Any) -> None:
        pipe.send_text(":hint\r")
        await until(lambda: repl.state.hints == 1)
        assert plain(repl.output).startswith("hint 1/4: Split:")
        assert ":hint" not in repl.buffer.text
        pipe.send_text("\x07")  # Ctrl-G: the next hint
        await until(lambda: repl.state.hints == 2)
        pipe.send_text(":help\r")
        await until(lambda: "Commands" in plain(repl.output))
        for name in ("submit", "try", "hint", "shapes", "reset", "edit", "solution", "skip", "quit"):
            assert f":{name}" in plain(repl.output)
        pipe.send_text(":shapes\r")
        await until(lambda: "pad_mask     (B, S)" in plain(repl.output))
        assert "Split d into H heads" in plain(repl.output)
        pipe.send_text("def f(x):\rreturn x\r")  # typed on the `pass` line, which gives way
        await until(lambda: "    def f(x):\n        return x\n    " in repl.buffer.text)
        assert "pass" not in repl.buffer.text
        pipe.send_text(":reset\r")
        await until(lambda: repl.question is not None)
        pipe.send_text("y")
        await until(lambda: repl.buffer.text == mha.skeleton())
        pipe.send_text(":quit\r")

    _, outcome = run_repl(mha, idle_grading, _drill_home, script)
    assert outcome.hints == 2


def test_edit_loads_the_file_back(mha, idle_grading, _drill_home):
    calls = []

    def fake_editor(text: str, drill: str) -> EditResult:
        calls.append((text, drill))
        return EditResult("# from the editor")

    async def script(repl: DrillRepl, pipe: Any) -> None:
        pipe.send_text(":edit\r")
        await until(lambda: repl.buffer.text == "# from the editor\n")
        await leave(repl, pipe)

    run_repl(mha, idle_grading, _drill_home, script, editor=fake_editor)
    assert calls and calls[0][1] == "mha-padding" and "def multi_head_attention" in calls[0][0]


def test_editor_command_may_carry_arguments(tmp_path):
    src = tmp_path / "sol.py"
    src.write_text("print('hi')\n")
    assert edit_text("old\n", "mha-padding", ["cp", str(src)]).text == "print('hi')\n"
    failed = edit_text("old\n", "mha-padding", ["false"])
    assert failed.text is None and "status 1" in failed.problem
    assert "could not start" in edit_text("x", "d", ["/no/such/editor"]).problem


def test_solution_counts_as_a_fail(mha, idle_grading, _drill_home):
    async def script(repl: DrillRepl, pipe: Any) -> None:
        pipe.send_text(":solution\r")
        await until(lambda: repl.question is not None)
        pipe.send_text("y")
        await until(lambda: "Reference solution" in plain(repl.output))
        pipe.send_text(":quit\r")

    _, outcome = run_repl(mha, idle_grading, _drill_home, script, record=store_recorder())
    assert outcome.revealed
    with open_store() as store:
        [attempt] = store.attempts()
    assert attempt.revealed and attempt.verdict == "wrong" and attempt.rating == 1


def test_mock_locks_hints_try_and_solution(mha, idle_grading, _drill_home):
    async def script(repl: DrillRepl, pipe: Any) -> None:
        for cmd in ("hint", "try", "solution"):
            pipe.send_text(f":{cmd}\r")
            await until(lambda: "locked" in repl.message)
            repl.message = ""
        assert repl.state.hints == 0 and not repl.output
        assert all(name not in ("hint", "try") for _, name in repl.key_hints())
        pipe.send_text(":quit\r")

    run_repl(mha, idle_grading, _drill_home, script,
             options=ReplOptions(mode="mock", locked=frozenset({"hint", "try", "solution"})))


def test_countdown_turns_red_when_over(mha, idle_grading, _drill_home):
    clock = FakeClock()

    async def script(repl: DrillRepl, pipe: Any) -> None:
        from trainer.repl.toolbar import bar

        under = bar(repl.bar_state())
        assert any("7:00 left of 7:00" in t and "clock" in s for s, t in under)
        clock.advance(100)
        assert any("5:20 left of 7:00" in t and "clock" in s for s, t in bar(repl.bar_state()))
        clock.advance(321)
        over = bar(repl.bar_state())
        assert any("+0:01 over 7:00" in t and "over" in s for s, t in over)
        assert any("^S submit" in t for _, t in over)
        pipe.send_text(":quit\r")

    run_repl(mha, idle_grading, _drill_home, script, clock=clock)


def test_mock_deadline_ends_the_drill(mha, idle_grading, _drill_home):
    clock = FakeClock()

    async def script(repl: DrillRepl, pipe: Any) -> None:
        clock.advance(61)

    _, outcome = run_repl(mha, idle_grading, _drill_home, script, clock=clock,
                          options=ReplOptions(mode="mock", deadline=clock.monotonic() + 60))
    assert outcome.status == "timeout"


def test_vi_mode_setting(mha, idle_grading, _drill_home):
    from prompt_toolkit.enums import EditingMode

    async def script(repl: DrillRepl, pipe: Any) -> None:
        assert repl.app.editing_mode == EditingMode.VI
        pipe.send_text("x = 1\x1b")  # insert mode, then Escape to normal mode
        await until(lambda: "x = 1" in repl.buffer.text)
        await asyncio.sleep(0.1)
        pipe.send_text(":hint\r")  # ':' in normal mode opens a command line, as in vi
        await until(lambda: repl.state.hints == 1)
        assert ":hint" not in repl.buffer.text and "x = 1" in repl.buffer.text
        await leave(repl, pipe)

    run_repl(mha, idle_grading, _drill_home, script, options=ReplOptions(vi=True))


def test_next_indent():
    assert next_indent("def f(x):") == "    "
    assert next_indent("    y = x") == "    "
    assert next_indent("        return y") == "    "
    assert next_indent("# a comment:") == ""


def test_commands_typed_ahead_wait_for_the_running_job(mha, grading, _drill_home):
    """':edit' and ':submit' sent in one burst: the submit runs on the edited buffer."""
    good = solution("mha-padding", "ok_einsum.py")

    async def script(repl: DrillRepl, pipe: Any) -> None:
        pipe.send_text(":edit\r:submit\r")
        await until(lambda: repl.state.results)
        assert repl.state.results[0].verdict == "pass"
        pipe.send_text(":quit\r")

    _, outcome = run_repl(mha, grading, _drill_home, script, editor=lambda text, drill: EditResult(good))
    assert outcome.status == "passed"


def test_the_repl_never_imports_torch_at_start():
    import subprocess
    import sys

    code = ("import sys, trainer.cli; trainer.cli._register(); import trainer.repl.app, trainer.repl.quickfire, "
            "trainer.practice.watch, trainer.repl.grading, trainer.practice.flows; print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


def test_up_never_swaps_the_buffer_and_alt_p_brings_back_a_submission(mha, grader, _drill_home):
    from prompt_toolkit.history import InMemoryHistory

    history = InMemoryHistory()
    history.append_string("# an earlier submission\n")

    async def script(repl: DrillRepl, pipe: Any) -> None:
        pipe.send_text("\x1b[A" * 30)  # Up, far past the first line
        await asyncio.sleep(0.3)
        assert repl.buffer.text == mha.skeleton() and repl.buffer.document.cursor_position_row == 0
        pipe.send_text("\x1bp")  # Alt-P
        await until(lambda: repl.buffer.text == "# an earlier submission\n")
        pipe.send_text("\x1bn")  # Alt-N: back to the working buffer
        await until(lambda: repl.buffer.text == mha.skeleton())
        pipe.send_text("\x11")

    run_repl(mha, InProcessGrading(grader), _drill_home, script, history=history)


def test_in_a_session_ctrl_n_goes_on_after_a_pass(mha, grading, _drill_home):
    async def script(repl: DrillRepl, pipe: Any) -> None:
        pipe.send_text("\x0e")  # before a pass Ctrl-N is only a line down
        await asyncio.sleep(0.2)
        assert repl.app.is_running
        set_text(repl, solution("mha-padding", "ok_einsum.py"))
        pipe.send_text(CTRL_S)
        await until(lambda: repl.state.results)
        assert "Enter (or ^N): the next item" in plain(repl.output)
        assert ("Enter", "next") in repl.key_hints()
        pipe.send_text("\x0e")

    _, outcome = run_repl(mha, grading, _drill_home, script,
                          options=ReplOptions(mode="warmup", in_flow=True, label="warm-up 1/3"))
    assert outcome.status == "passed" and not outcome.stop


def test_the_last_item_of_a_session_goes_on_to_the_summary(mha, grading, _drill_home):
    async def script(repl: DrillRepl, pipe: Any) -> None:
        set_text(repl, solution("mha-padding", "ok_einsum.py"))
        pipe.send_text(CTRL_S)
        await until(lambda: repl.state.results)
        assert "Enter (or ^N): the summary" in plain(repl.output) and "the next item" not in plain(repl.output)
        pipe.send_text("\x0e")

    _, outcome = run_repl(mha, grading, _drill_home, script,
                          options=ReplOptions(mode="warmup", in_flow=True, last=True, label="warm-up 3/3"))
    assert outcome.status == "passed" and not outcome.stop
    shown = []

    async def mock(repl: DrillRepl, pipe: Any) -> None:
        set_text(repl, solution("mha-padding", "ok_einsum.py"))
        pipe.send_text(CTRL_S)
        await until(lambda: repl.state.results)
        shown.append(plain(repl.output))
        pipe.send_text("\x0e")

    run_repl(mha, grading, _drill_home, mock, options=ReplOptions(mode="mock", in_flow=True, last=True,
                                                                  next_text="the follow-up", label="mock 1/1"))
    assert "Enter (or ^N): the follow-up" in shown[0]  # a mock's pass leads to its follow-up first


class _GatedGrading:
    """A stand-in grader the test releases by hand, so a command can be typed while a grade
    runs; its report has two failing cases (the REPL under test, not the grader)."""

    def __init__(self) -> None:
        import threading

        self.gate = threading.Event()

    def grade(self, drill_id, source, filename="<buffer>", seed=None, timeout=120):
        from grader.report import CaseResult, Report, TrapMatch

        self.gate.wait(20)
        cases = [CaseResult("small", "f", "wrong", "values differ at [0, 1]"),
                 CaseResult("odd-length", "f", "error", "RuntimeError: shape mismatch (line 4)"),
                 CaseResult("big", "f", "pass")]
        return Report(drill_id, "error", cases, 0.1, seed=seed, trap=TrapMatch("no-scale", "forgot the scale"))

    def smallest(self, report, source, filename="<buffer>"):
        return None

    def close(self) -> None:
        pass

    def cancel(self) -> None:
        pass


def test_a_command_queued_while_grading_keeps_the_verdict_above_it(mha, _drill_home):
    """^S then :hint typed while the grade runs: the hint is shown below the verdict, and
    PgUp scrolls back to the verdict; :last shows the verdict alone again."""
    gated = _GatedGrading()

    async def script(repl: DrillRepl, pipe: Any) -> None:
        touch(repl)
        pipe.send_text(CTRL_S)
        await until(lambda: repl.busy)
        pipe.send_text(":hint\r")
        await until(lambda: "queued" in repl.message)
        gated.gate.set()
        await until(lambda: repl.state.results and "hint 1/" in plain(repl.output))
        everything = plain(repl.output)
        assert everything.index("ERROR") < everything.index("hint 1/")  # the verdict is still there, above
        assert "trap: no-scale" in everything
        view = plain(repl.output_view())
        assert view.lstrip().startswith("hint 1/") and "ERROR" not in view  # scrolled to the hint
        assert "PgUp" in plain(bar_text(repl))
        repl.scroll_page(-1)
        repl.scroll_page(-1)
        assert plain(repl.output_view()).startswith("ERROR")  # PgUp brings it back
        pipe.send_text(":last\r")
        await until(lambda: not plain(repl.output).count("hint 1/"))
        assert plain(repl.output).startswith("ERROR") and repl.output_offset == 0
        await leave(repl, pipe)

    run_repl(mha, gated, _drill_home, script)


def test_verbose_shows_every_failing_case_and_help_lists_it(mha, _drill_home):
    gated = _GatedGrading()
    gated.gate.set()

    async def script(repl: DrillRepl, pipe: Any) -> None:
        pipe.send_text(":verbose\r")
        await until(lambda: "Nothing graded yet" in plain(repl.output))
        touch(repl)
        pipe.send_text(CTRL_S)
        await until(lambda: repl.state.results)
        short = " ".join(plain(repl.output).split())
        assert "also failing: small" in short and ":verbose lists every failing case" in short
        pipe.send_text(":verbose\r")
        await until(lambda: "also failing" not in plain(repl.output))
        full = plain(repl.output)
        assert "case small" in full and "case odd-length" in full and "big" in full
        pipe.send_text(":help\r")
        await until(lambda: ":verbose" in plain(repl.output))
        assert ":last" in plain(repl.output)
        await leave(repl, pipe)

    run_repl(mha, gated, _drill_home, script)


def bar_text(repl: DrillRepl) -> Any:
    from trainer.repl.toolbar import bar

    return bar(repl.bar_state(), 100)


class _PassGrading(_GatedGrading):
    """The stand-in grader again: a buffer holding 'ok' passes."""

    def grade(self, drill_id, source, filename="<buffer>", seed=None, timeout=120):
        from grader.report import CaseResult, Report

        if "ok" in source:
            return Report(drill_id, "pass", [CaseResult("small", "f", "pass")], 0.1, seed=seed)
        return super().grade(drill_id, source, filename, seed, timeout)


def test_submits_leave_out_the_solution_and_re_submits_after_a_pass(mha, _drill_home):
    from trainer.cli.practice import _outcome_line

    grading = _PassGrading()
    grading.gate.set()
    clock = FakeClock()

    async def script(repl: DrillRepl, pipe: Any) -> None:
        clock.advance(70)
        pipe.send_text(":solution\r")
        await until(lambda: repl.question is not None)
        pipe.send_text("y")
        await until(lambda: "Reference solution" in plain(repl.output))
        set_text(repl, "# ok\n")
        pipe.send_text(CTRL_S)
        await until(lambda: len(repl.state.results) == 1)
        pipe.send_text(CTRL_S)  # a re-submit after the pass
        await until(lambda: len(repl.state.results) == 2)
        pipe.send_text(":quit\r")

    _, outcome = run_repl(mha, grading, _drill_home, script, clock=clock)
    assert outcome.status == "passed" and outcome.submits == 1 and outcome.revealed
    line = _outcome_line(outcome)
    assert "after 1 submit." in line and "You revealed the reference solution at 1:10" in line


def test_alt_p_and_alt_n_recall_the_submissions_of_this_sitting(mha, _drill_home):
    from prompt_toolkit.history import InMemoryHistory

    grading = _PassGrading()
    grading.gate.set()

    async def script(repl: DrillRepl, pipe: Any) -> None:
        for n in (1, 2):
            set_text(repl, f"# attempt {n}\n")
            pipe.send_text(CTRL_S)
            await until(lambda: len(repl.state.results) == n)
        set_text(repl, "# working on it\n")
        pipe.send_text("\x1bp")  # Alt-P: the latest submission of this sitting
        await until(lambda: repl.buffer.text == "# attempt 2\n")
        pipe.send_text("\x1bp")
        await until(lambda: repl.buffer.text == "# attempt 1\n")
        pipe.send_text("\x1bn\x1bn")  # Alt-N twice: back to the buffer being written
        await until(lambda: repl.buffer.text == "# working on it\n")
        pipe.send_text(CTRL_Q)
        await until(lambda: repl.question is not None)
        pipe.send_text("y")

    run_repl(mha, grading, _drill_home, script, history=InMemoryHistory())


def test_ctrl_c_on_an_untouched_skeleton_promises_no_draft(mha, idle_grading, _drill_home):
    async def script(repl: DrillRepl, pipe: Any) -> None:
        pipe.send_text(CTRL_C)
        await until(lambda: repl.question is not None)
        assert repl.question.text == "Leave this drill?"  # nothing of the person's to keep
        pipe.send_text("n")
        await until(lambda: repl.question is None)
        set_text(repl, repl.buffer.text + "x = 1\n")
        pipe.send_text(CTRL_C)
        await until(lambda: repl.question is not None)
        assert repl.question.text == "Leave this drill? Your buffer is kept as a draft."
        pipe.send_text("y")

    run_repl(mha, idle_grading, _drill_home, script)
    assert Drafts(_drill_home).path("mha-padding").exists()


def test_a_buffer_the_mocks_0_00_graded_is_not_offered_back_as_a_draft(mha, _drill_home):
    grading = _PassGrading()
    grading.gate.set()
    clock = FakeClock()

    async def script(repl: DrillRepl, pipe: Any) -> None:
        set_text(repl, repl.buffer.text + "# half done\n")
        assert Drafts(_drill_home).path("mha-padding").exists()  # while it is being written
        clock.advance(61)  # 0:00: the buffer is graded and counted

    _, outcome = run_repl(mha, grading, _drill_home, script, clock=clock,
                          options=ReplOptions(mode="mock", deadline=clock.monotonic() + 60))
    assert outcome.status == "timeout" and outcome.attempts == 1 and "# half done" in outcome.code
    assert not Drafts(_drill_home).path("mha-padding").exists()  # graded: nothing "unsubmitted" to restore


def test_alt_p_right_after_a_submit_goes_to_the_one_before(mha, _drill_home):
    """The buffer just submitted is also the latest entry: Alt-P skips it, never a no-op."""
    grading = _PassGrading()
    grading.gate.set()

    async def script(repl: DrillRepl, pipe: Any) -> None:
        for n in (1, 2):
            set_text(repl, f"# attempt {n}\n")
            pipe.send_text(CTRL_S)
            await until(lambda: len(repl.state.results) == n)
        pipe.send_text("\x1bp")
        await until(lambda: repl.buffer.text == "# attempt 1\n")
        pipe.send_text("\x1bn")
        await until(lambda: repl.buffer.text == "# attempt 2\n")
        pipe.send_text(CTRL_Q)
        await until(lambda: repl.question is not None or not repl.app.is_running)
        if repl.question is not None:
            pipe.send_text("y")

    run_repl(mha, grading, _drill_home, script, history=__import__("prompt_toolkit.history").history.InMemoryHistory())


class _LongMessageGrading(_GatedGrading):
    """A wrong verdict whose message is long enough to fold at any width."""

    def grade(self, drill_id, source, filename="<buffer>", seed=None, timeout=120):
        from grader.report import CaseResult, Report

        message = ("with fake CUDA inputs at B=8, T=2048, H=32, dh=128, d=4096: value 0 is None where "
                   "the reference returns a tensor, and every word of this must still be there")
        return Report(drill_id, "wrong", [CaseResult("device", "f", "wrong", message)], 0.1, seed=seed)


def test_a_resize_shows_the_verdict_made_again_for_the_new_width(mha, _drill_home):
    """A verdict shown at 80 columns and then at 50 was the 80-column lines folded again (a long line,
    then a stub of a few words, over and over); it is rendered again for 50 columns instead."""
    from trainer.repl.wrap import lines_of, wrap_line

    async def script(repl: DrillRepl, pipe: Any) -> None:
        touch(repl)
        pipe.send_text(CTRL_S)
        await until(lambda: repl.state.results and "WRONG" in plain(repl.output))
        wide = repl.output
        refolded = [plain(p) for line in lines_of(wide) for p in wrap_line(line, 49)]
        repl.columns = lambda: 50  # type: ignore[method-assign]  # as after the terminal was resized
        rows = plain(repl.output_view()).split("\n")
        assert all(len(row) <= 49 for row in rows)
        assert rows != [r.rstrip() for r in refolded][:len(rows)]  # not the 80-column lines folded again
        words = " ".join(" ".join(rows).split())
        assert "value 0 is None where the reference returns a tensor, and every word of this" in words
        assert plain(repl.output) != plain(wide)  # made again, not only displayed
        pipe.send_text(":last\r")  # :last shows it at the width of now, too
        await until(lambda: all(len(r) <= 49 for r in plain(repl.output).split("\n")))
        await leave(repl, pipe)

    run_repl(mha, _LongMessageGrading(), _drill_home, script)


@pytest.mark.parametrize("buffer, why", [
    (None, "still the code it opened with"),
    ("", "the buffer is empty"),
    ("def f(x):\n    return x +\n", "SyntaxError at line 2"),
    ("def f(x):\n  return x\n   y = 1\n", "IndentationError at line 3"),
])
def test_a_skeleton_empty_or_unparsable_submit_is_not_graded_or_counted(mha, _drill_home, buffer, why):
    gated = _GatedGrading()
    gated.gate.set()
    clock = FakeClock()

    async def script(repl: DrillRepl, pipe: Any) -> None:
        if buffer is not None:
            set_text(repl, buffer)
        clock.advance(30)
        pipe.send_text(CTRL_S)
        await until(lambda: "Not graded, not counted" in plain(repl.output))
        text = " ".join(plain(repl.output).split())
        assert why in text and "the clock goes on" in text
        assert repl.state.attempts == repl.state.submits == 0 and not repl.state.results and not repl.busy
        clock.advance(10)
        assert repl.elapsed() == 40  # the clock went on
        touch(repl)  # a real first try is counted as the first submit
        pipe.send_text(CTRL_S)
        await until(lambda: repl.state.results)
        assert repl.state.submits == 1
        await leave(repl, pipe)

    _, outcome = run_repl(mha, gated, _drill_home, script, clock=clock)
    assert outcome.submits == 1 and outcome.attempts == 1


def test_the_grading_time_is_not_the_persons_time(mha, _drill_home):
    """A first grade that takes 31 s (a worker starting on a loaded machine): the countdown stands
    still while it runs, the pass is timed at the submit, and the screen says grading was left out."""
    from grader.report import CaseResult, Report

    clock = FakeClock()

    class SlowPass(_GatedGrading):
        def grade(self, drill_id, source, filename="<buffer>", seed=None, timeout=120):
            self.gate.wait(20)
            return Report(drill_id, "pass", [CaseResult("small", "f", "pass")], 0.1, seed=seed)

    slow = SlowPass()

    async def script(repl: DrillRepl, pipe: Any) -> None:
        clock.advance(42)
        touch(repl)
        pipe.send_text(CTRL_S)
        await until(lambda: repl.busy)
        before = plain(bar_text(repl))
        clock.advance(31)  # the grader works
        repl.redraw()
        assert repl.elapsed() == 42 and plain(bar_text(repl)) == before  # the countdown did not move
        slow.gate.set()
        await until(lambda: repl.state.results)
        assert "solved in 0:42, grading excluded (0:31), target" in " ".join(plain(repl.output).split())
        clock.advance(5)
        assert repl.elapsed() == 42  # stopped at the pass
        await leave(repl, pipe)

    _, outcome = run_repl(mha, slow, _drill_home, script, clock=clock)
    assert outcome.status == "passed" and outcome.seconds == 42 and round(outcome.grading_seconds) == 31


class _RecordingGrading(InProcessGrading):
    """The real in-process grading, noting what the REPL asked of it and in what order."""

    def __init__(self, grader: Any) -> None:
        super().__init__(grader)
        self.asked: list[tuple[str, Any]] = []

    def grade(self, *a: Any, **k: Any) -> Any:
        self.asked.append(("grade", k.get("comments", True)))
        return super().grade(*a, **k)

    def shape_comments(self, *a: Any, **k: Any) -> Any:
        self.asked.append(("shape_comments", None))
        return super().shape_comments(*a, **k)


def test_shape_comments_follow_the_verdict_and_are_added_to_it(mha, grader, _drill_home):
    grading = _RecordingGrading(grader)
    code = solution("mha-padding", "ok_einsum.py")
    line = next(i for i, text in enumerate(code.splitlines()) if "einsum" in text and "=" in text)
    lines = code.splitlines()
    lines[line] += "  # (B, T)"  # a wrong shape comment: the line makes a 4-d tensor
    code = "\n".join(lines) + "\n"

    async def script(repl: DrillRepl, pipe: Any) -> None:
        set_text(repl, code)
        pipe.send_text(CTRL_S)
        await until(lambda: repl.state.results)
        await until(lambda: "shape comments:" in plain(repl.output))
        text = " ".join(plain(repl.output).split())
        assert text.startswith("PASS")
        assert "shape comments: 1 of 1 wrong on the example inputs" in text and "says (B, T)" in text
        pipe.send_text(":quit\r")

    repl, outcome = run_repl(mha, grading, _drill_home, script)
    assert outcome.status == "passed"
    assert grading.asked == [("grade", False), ("shape_comments", None)]  # the verdict first, then the comments
    assert outcome.report is not None and [c["ok"] for c in outcome.report.shape_comments] == [False]


def test_code_without_shape_comments_asks_for_none(mha, grader, _drill_home):
    grading = _RecordingGrading(grader)

    async def script(repl: DrillRepl, pipe: Any) -> None:
        set_text(repl, "\n".join(text for text in solution("mha-padding", "ok_einsum.py").splitlines()
                                 if not text.strip().startswith("#")) + "\n")
        pipe.send_text(CTRL_S)
        await until(lambda: repl.state.results)
        pipe.send_text(":quit\r")

    run_repl(mha, grading, _drill_home, script)
    assert grading.asked == [("grade", True)]
