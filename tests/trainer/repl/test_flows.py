"""The daily flows in the REPL (issue 12): commands never become code, the cursor stays
where the person is, leaving a drill in a session, cancelling a grade, a mock's 0:00,
the next drill after a pass, and a bar that fits. A fake grader keeps these fast."""
from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.document import Document

from grader.report import CaseResult, Report, TrapMatch
from tests.trainer.repl.test_repl import CTRL_C, CTRL_Q, run_repl, store_recorder, until
from trainer.repl.app import DrillRepl, ReplOptions
from trainer.clock import FakeClock
from trainer.repl.code import essence, opening, untouched, without_commands
from trainer.repl.drafts import Drafts
from trainer.repl.toolbar import BarState, bar
from trainer.practice.flows import SCORE_FORMULA, DrillItem, ItemResult, Mock
from trainer.store import open_store
from trainer.text.verdict import plain

ESC = "\x1b"


class FakeGrading:
    """Answers every grade with `verdict`; with `gate`, a grade waits until the gate opens."""

    def __init__(self, verdict: str = "wrong", gate: threading.Event | None = None):
        self.verdict = verdict
        self.gate = gate
        self.sources: list[str] = []
        self.cancelled = 0

    def grade(self, drill_id: str, source: str, filename: str = "<buffer>", seed: int | None = None,
              timeout: float = 120) -> Report:
        self.sources.append(source)
        if self.gate is not None:
            self.gate.wait(10)
        if self.verdict == "pass":
            return Report(drill_id, "pass", [CaseResult("c1", "f", "pass")], seed=seed)
        case = CaseResult("fp32-right-padding", "masked_mean", "wrong", "values differ", {"B": 2, "T": 3})
        return Report(drill_id, self.verdict, [case], seed=seed, trap=TrapMatch("mean-over-padding", "divides by T"))

    def trace(self, drill_id: str, source: str, filename: str = "<buffer>", **_: Any) -> dict[str, Any]:
        return {"drill": drill_id, "dims": {}, "calls": []}

    def smallest(self, report: Report, source: str, filename: str = "<buffer>") -> None:
        return None

    def cancel(self) -> None:
        self.cancelled += 1

    def close(self) -> None:
        pass


@pytest.fixture
def mm(catalogue):
    return catalogue.get("masked-mean")


def typed(pipe: Any, text: str) -> None:
    pipe.send_text(text)


# ------------------------------------------------------------ commands never become code


def test_quit_on_an_untouched_buffer_leaves_no_draft(mm, _drill_home):
    async def script(repl: DrillRepl, pipe: Any) -> None:
        assert repl.buffer.cursor_position == opening(mm.skeleton())  # on the `pass` line
        typed(pipe, ":quit")
        await until(lambda: ":quit" in repl.buffer.text)
        assert "pass" not in repl.buffer.text.split(":quit")[0].splitlines()[-1]  # pass gave way
        typed(pipe, "\r")

    _, outcome = run_repl(mm, FakeGrading(), _drill_home, script)
    assert outcome.status == "quit" and not outcome.draft
    assert not Drafts(_drill_home).path("masked-mean").exists()


def test_vi_q_and_a_declined_solution_never_reach_the_draft(mm, _drill_home):
    async def script(repl: DrillRepl, pipe: Any) -> None:
        typed(pipe, "m = mask.float()")
        await until(lambda: "m = mask.float()" in repl.buffer.text)
        typed(pipe, ESC)
        await until(lambda: repl.vi_mode() == "NORMAL")
        typed(pipe, ":solution\r")
        await until(lambda: repl.question is not None)
        typed(pipe, "n")
        await until(lambda: repl.question is None)
        assert ":solution" not in repl.buffer.text
        typed(pipe, ":q")
        await until(lambda: ":q" in repl.buffer.text)
        assert ":q" not in Drafts(_drill_home).path("masked-mean").read_text()
        typed(pipe, "\r")
        await until(lambda: repl.question is not None)  # unsubmitted changes
        typed(pipe, "y")

    run_repl(mm, FakeGrading(), _drill_home, script, options=ReplOptions(vi=True))
    draft = Drafts(_drill_home).path("masked-mean").read_text()
    assert "m = mask.float()" in draft and ":" not in "".join(line.strip()[:1] for line in draft.splitlines())
    compile(draft, "draft", "exec")  # the draft is code


def test_vi_colon_then_escape_leaves_no_line_and_goes_back(mm, _drill_home):
    async def script(repl: DrillRepl, pipe: Any) -> None:
        typed(pipe, "m = 1")
        await until(lambda: "m = 1" in repl.buffer.text)
        typed(pipe, ESC)
        await until(lambda: repl.vi_mode() == "NORMAL")
        before = (repl.buffer.text, repl.buffer.cursor_position)
        typed(pipe, ":hin")
        await until(lambda: repl.buffer.text.endswith(":hin"))
        assert repl.vi_mode() == "INSERT" and "INSERT" in plain(bar(repl.bar_state(), 100))
        typed(pipe, ESC)
        await until(lambda: repl.vi_mode() == "NORMAL")
        assert (repl.buffer.text, repl.buffer.cursor_position) == before
        typed(pipe, ":hint\r")
        await until(lambda: repl.state.hints == 1)
        assert (repl.buffer.text, repl.buffer.cursor_position) == before and repl.vi_mode() == "NORMAL"
        typed(pipe, CTRL_Q)
        await until(lambda: repl.question is not None)
        typed(pipe, "y")

    run_repl(mm, FakeGrading(), _drill_home, script, options=ReplOptions(vi=True))


def test_an_old_draft_of_commands_is_not_offered(mm, _drill_home):
    drafts = Drafts(_drill_home)
    drafts.save("masked-mean", mm.skeleton() + ":quit\n")

    async def script(repl: DrillRepl, pipe: Any) -> None:
        assert repl.question is None
        typed(pipe, CTRL_Q)

    run_repl(mm, FakeGrading(), _drill_home, script)
    assert not drafts.path("masked-mean").exists()


def test_after_a_command_the_cursor_is_on_the_emptied_line(mm, _drill_home):
    async def script(repl: DrillRepl, pipe: Any) -> None:
        typed(pipe, "m = mask.float()\rreturn x.mean(1)")
        await until(lambda: "return x.mean(1)" in repl.buffer.text)
        repl.buffer.cursor_position = repl.buffer.text.index("m = mask") + len("m = mask.float()")
        typed(pipe, "\r:hint\r")  # a command on a new line in the middle of the code
        await until(lambda: repl.state.hints == 1)
        row = repl.buffer.document.cursor_position_row
        assert repl.buffer.document.current_line == "    "
        assert repl.buffer.document.lines[row - 1] == "    m = mask.float()"
        assert repl.buffer.document.lines[row + 1] == "    return x.mean(1)"
        typed(pipe, "s = 1\r:submit\r")  # the next command stays a command
        await until(lambda: repl.state.results)
        assert "@ v:submit" not in repl.buffer.text and ":submit" not in repl.buffer.text
        assert "    s = 1\n    \n    return x.mean(1)" in repl.buffer.text
        typed(pipe, CTRL_Q)

    grading = FakeGrading()
    run_repl(mm, grading, _drill_home, script)
    assert ":submit" not in grading.sources[0] and "s = 1" in grading.sources[0]


def test_a_command_on_the_untouched_skeleton_keeps_the_skeleton(mm, _drill_home):
    async def script(repl: DrillRepl, pipe: Any) -> None:
        typed(pipe, ":hint\r")
        await until(lambda: repl.state.hints == 1)
        assert repl.buffer.text == mm.skeleton()
        assert repl.buffer.cursor_position == opening(mm.skeleton())
        typed(pipe, CTRL_Q)

    run_repl(mm, FakeGrading(), _drill_home, script)


def test_text_rules():
    skel = "import torch\n\n\ndef f(x):\n    # x: (N,)\n    pass\n\n"
    assert skel[opening(skel):].startswith("pass")
    assert untouched(skel.replace("    pass\n", "    \n") + ":quit\n", skel)
    assert not untouched(skel.replace("pass", "return x"), skel)
    assert without_commands("a = 1\n:submit\n  :hint 2\n:\nx[1\n    :3]\n") == "a = 1\nx[1\n    :3]\n"
    assert essence("a = 1  \n\n   pass\n") == ["a = 1"]


# ------------------------------------------------------------ leaving a drill in a session


@pytest.mark.parametrize("key,status,stop", [("s", "skipped", False), ("e", "quit", True)])
def test_in_a_session_ctrl_c_asks_skip_or_end_and_records_nothing(mm, _drill_home, key, status, stop):
    async def script(repl: DrillRepl, pipe: Any) -> None:
        typed(pipe, CTRL_C)
        await until(lambda: repl.question is not None)
        assert [k for k, _, _ in repl.question.choices] == ["s", "e"]
        assert "end the warm-up" in plain(bar(repl.bar_state(), 100))
        typed(pipe, ESC)  # Esc: stay
        await until(lambda: repl.question is None)
        assert repl.app.is_running
        typed(pipe, CTRL_Q)
        await until(lambda: repl.question is not None)
        typed(pipe, key)

    _, outcome = run_repl(mm, FakeGrading(), _drill_home, script, record=store_recorder(),
                          options=ReplOptions(mode="warmup", in_flow=True, label="warm-up 2/4"))
    assert outcome.status == status and outcome.stop == stop and outcome.attempts == 0
    with open_store() as store:
        assert store.attempts() == [] and store.card("masked-mean") is None


# ------------------------------------------------------------ cancelling a grade


def test_esc_during_a_grade_cancels_it_and_stays(mm, _drill_home):
    gate = threading.Event()
    grading = FakeGrading(gate=gate)

    async def script(repl: DrillRepl, pipe: Any) -> None:
        typed(pipe, "return x\r:submit\r")
        await until(lambda: repl.busy)
        assert "Esc cancels" in plain(bar(repl.bar_state(), 100))
        await asyncio.sleep(0.6)  # Esc alone is told from Alt-key after a short wait
        typed(pipe, ESC)
        await until(lambda: not repl.busy)
        assert repl.message == "grade cancelled; nothing recorded" and grading.cancelled == 1
        gate.set()
        await asyncio.sleep(0.2)
        assert not repl.state.results and repl.state.attempts == 0 and repl.app.is_running
        gate.clear()
        typed(pipe, ":submit\r")
        await until(lambda: repl.busy)
        typed(pipe, CTRL_C)  # Ctrl-C cancels too
        await until(lambda: not repl.busy)
        assert repl.question is None and grading.cancelled == 2
        gate.set()
        typed(pipe, CTRL_C)  # Ctrl-C with no grade running asks about leaving, as before
        await until(lambda: repl.question is not None)
        typed(pipe, "y")

    _, outcome = run_repl(mm, grading, _drill_home, script, record=store_recorder())
    assert outcome.attempts == 0
    with open_store() as store:
        assert store.attempts() == []


# ------------------------------------------------------------ a mock's 0:00


def test_at_zero_the_last_buffer_is_graded_and_counted(mm, _drill_home):
    clock = FakeClock()
    grading = FakeGrading()

    async def script(repl: DrillRepl, pipe: Any) -> None:
        typed(pipe, "return x.mean(1)")
        await until(lambda: "x.mean(1)" in repl.buffer.text)
        assert "drill target 3:00" in plain(bar(repl.bar_state(), 100))
        assert "left of" not in plain(bar(repl.bar_state(), 100))  # one countdown: the session's
        clock.advance(61)

    with open_store() as store:
        mock_id = store.start_session("mock", {})
    _, outcome = run_repl(mm, grading, _drill_home, script, clock=clock, record=store_recorder(),
                          options=ReplOptions(mode="mock", deadline=clock.monotonic() + 60, label="mock 1/2",
                                              in_flow=True, flow_id=mock_id))
    assert outcome.status == "timeout" and outcome.verdict == "wrong" and outcome.attempts == 1
    assert "return x.mean(1)" in outcome.code and outcome.seconds == pytest.approx(60)
    with open_store() as store:
        [attempt] = store.attempts()
    assert attempt.mode == "mock" and attempt.verdict == "wrong" and "x.mean(1)" in attempt.code
    assert attempt.session_id == mock_id  # the store's row of the mock


def test_at_zero_an_untouched_buffer_is_not_graded(mm, _drill_home):
    clock = FakeClock()
    grading = FakeGrading()

    async def script(repl: DrillRepl, pipe: Any) -> None:
        clock.advance(61)

    _, outcome = run_repl(mm, grading, _drill_home, script, clock=clock,
                          options=ReplOptions(mode="mock", deadline=clock.monotonic() + 60, in_flow=True))
    assert outcome.status == "timeout" and outcome.verdict is None and grading.sources == []


def test_the_mock_summary_shows_verdicts_code_and_the_formula():
    clock = FakeClock()
    flow = Mock(["masked-mean", "mha-padding", "patchify"], 10, 5, clock)
    flow.queue.next()
    flow.queue.add(ItemResult(DrillItem("masked-mean", "mock"), "passed", 60, 1, verdict="pass",
                        detail=("PASS  9/9 cases",), code="def masked_mean(x, mask):\n    return x\n"))
    flow.queue.next()
    clock.advance(600)
    flow.queue.add(ItemResult(DrillItem("mha-padding", "mock"), "timeout", 540, 1, verdict="wrong",
                        failing_case="fp32-basic", detail=("WRONG  3/8 cases passed", "  fp32-basic: values differ"),
                        code="def multi_head_attention(Q, K, V, pad_mask, H):\n    return Q\x1b[2J\n"))
    report = flow.report({"masked-mean": 180, "mha-padding": 420, "patchify": 300})
    text = "\n".join(report.lines(80))
    assert "time ran out" in text and "patchify                     not reached" in text
    assert "Score: each drill is worth an equal share of 100" in text
    assert "  WRONG  3/8 cases passed" in text and "fp32-basic: values differ" in text
    assert "    | def multi_head_attention(Q, K, V, pad_mask, H):" in text
    assert "\x1b" not in text and "\\x1b[2J" in text  # the code is shown, never acted on
    assert all(len(line) <= 80 for line in report.lines(80) if line.startswith(("Score", "  ")) and "|" not in line)
    data = report.to_dict()
    assert data["score_formula"] == SCORE_FORMULA and data["score"] == report.score
    assert data["drills"][1]["failing_case"] == "fp32-basic" and "multi_head_attention" in data["drills"][1]["code"]


# ------------------------------------------------------------ a pass leads somewhere


def test_after_a_pass_enter_opens_the_next_drill(mm, _drill_home):
    async def script(repl: DrillRepl, pipe: Any) -> None:
        typed(pipe, "\r")  # before a pass Enter is a new line
        await until(lambda: repl.buffer.text != mm.skeleton())
        typed(pipe, "return x\r:submit\r")
        await until(lambda: repl.state.results)
        assert "Enter: the next drill, mha-padding (due)" in plain(repl.output)
        assert ("Enter", "next: mha-padding (due)") in repl.key_hints()
        typed(pipe, ":help\r")  # a command after the pass is still a command
        await until(lambda: "Commands" in plain(repl.output))
        assert repl.app.is_running
        typed(pipe, "\r")

    _, outcome = run_repl(mm, FakeGrading("pass"), _drill_home, script,
                          options=ReplOptions(next_drill=lambda: ("mha-padding (due)", "mha-padding")))
    assert outcome.status == "passed" and outcome.next_drill == "mha-padding"


def test_after_a_pass_quit_still_quits(mm, _drill_home):
    async def script(repl: DrillRepl, pipe: Any) -> None:
        typed(pipe, "return x\r:submit\r")
        await until(lambda: repl.state.results)
        typed(pipe, ":quit\r")

    _, outcome = run_repl(mm, FakeGrading("pass"), _drill_home, script,
                          options=ReplOptions(next_drill=lambda: ("mha-padding (due)", "mha-padding")))
    assert outcome.status == "passed" and outcome.next_drill is None


def test_after_a_pass_an_edit_makes_enter_a_new_line_again(mm, _drill_home):
    async def script(repl: DrillRepl, pipe: Any) -> None:
        typed(pipe, "return x\r:submit\r")
        await until(lambda: repl.state.results)
        typed(pipe, "# done\r\r")
        await until(lambda: "# done\n" in repl.buffer.text)
        assert repl.app.is_running
        typed(pipe, CTRL_Q)
        await until(lambda: repl.question is not None)
        typed(pipe, "y")

    _, outcome = run_repl(mm, FakeGrading("pass"), _drill_home, script,
                          options=ReplOptions(next_drill=lambda: ("mha-padding (due)", "mha-padding")))
    assert outcome.next_drill is None


# ------------------------------------------------------------ the bar


def _bar_text(state: BarState, width: int) -> str:
    return plain(bar(state, width))


@pytest.mark.parametrize("width", [40, 60, 80, 100])
def test_the_bar_fits_and_never_cuts_a_hint(width):
    hints = [("^S", "submit"), ("^T", "try"), ("^G", "hint"), ("^L", "shapes"), ("^O", "edit"), ("^Q", "quit")]
    for state in (BarState("ragged-to-padded", "warm-up 12/14", 30, 420, None, "", "", "", hints, vi_mode="INSERT"),
                  BarState("ragged-to-padded", "team 2/3", 30, 420, 1500, "", "", "", hints),
                  BarState("masked-mean", "mock 1/3", 30, 180, 1500, "", "", "draft restored", hints)):
        text = _bar_text(state, width)
        assert all(len(row) <= width for row in text.split("\n")), text
        assert "…" not in text and "^ " not in text
        assert "^S submit" in text or width < 60 or state.message  # the hint that matters most stays
        if state.vi_mode:
            assert "INSERT" in text


def test_a_short_label_says_what_the_sitting_is():
    from trainer.repl.toolbar import short_label

    assert short_label("warm-up 2/5") == "2/5"
    assert short_label("mock 1/3 · narrate · follow-up") == "follow-up"
    assert short_label("debug: find the bug") == short_label("warm-up 1/4 · debug: find the bug") == "debug"


def test_a_long_question_folds_instead_of_losing_its_keys():
    state = BarState("masked-mean", "", 0, 180, None, "", "Restore your unsubmitted draft from 01 Dec 15:41 (10 lines)?",
                     "", [])
    text = _bar_text(state, 60)
    assert text.endswith("[y/n] ") or text.rstrip().endswith("[y/n]")
    assert all(len(row) <= 60 for row in text.split("\n"))


def test_a_long_line_wraps_in_the_editor(mm, _drill_home):
    async def script(repl: DrillRepl, pipe: Any) -> None:
        assert repl.app.layout.current_window.wrap_lines()
        typed(pipe, CTRL_Q)

    run_repl(mm, FakeGrading(), _drill_home, script)


def test_set_document_helper_is_not_needed_for_typing(mm, _drill_home):
    """Typing at the `pass` placeholder replaces it; Enter there opens a line and keeps it."""
    async def script(repl: DrillRepl, pipe: Any) -> None:
        typed(pipe, "\r")
        await until(lambda: repl.buffer.text != mm.skeleton())
        assert "    pass" in repl.buffer.text
        repl.buffer.set_document(Document(mm.skeleton(), opening(mm.skeleton())))
        typed(pipe, "y")
        await until(lambda: "    y\n" in repl.buffer.text)
        assert "pass" not in repl.buffer.text
        typed(pipe, CTRL_Q)
        await until(lambda: repl.question is not None)
        typed(pipe, "y")

    run_repl(mm, FakeGrading(), _drill_home, script)


def test_a_whole_solution_pasted_on_open_replaces_the_skeleton(mm, _drill_home):
    from tests.trainer.repl.test_repl import paste, solution

    good = solution("masked-mean", "ok_where_loop.py")

    async def script(repl: DrillRepl, pipe: Any) -> None:
        typed(pipe, paste(good))
        await until(lambda: repl.buffer.text != mm.skeleton())
        assert repl.buffer.text == good
        typed(pipe, paste("    # a note\n    y = 1\n"))  # a later paste goes where the cursor is
        await until(lambda: "# a note" in repl.buffer.text)
        assert repl.buffer.text == good + "    # a note\n    y = 1\n"
        typed(pipe, CTRL_Q)
        await until(lambda: repl.question is not None)
        typed(pipe, "y")

    run_repl(mm, FakeGrading(), _drill_home, script)


@pytest.mark.parametrize("width", [60, 80])
def test_after_a_pass_the_bar_keeps_enter_next_before_quit(width):
    """At 60 columns the bar once kept "^Q quit" and dropped "Enter next": going on is what a
    pass is for, so "Enter next" stays longest (short, without the drill's name, if need be)."""
    hints = [("Enter", "next: ragged-to-padded (due)"), ("^Q", "quit")]
    for state in (BarState("mha-padding", "", 200, 420, None, "", "", "", hints, passed=True),
                  BarState("mha-padding", "", 200, 420, None, "", "", "PgDn: more ▼", hints, passed=True),
                  BarState("mha-padding", "warm-up 2/3", 200, 420, None, "", "", "PgDn: more ▼",
                           [("Enter", "next"), ("^Q", "quit")], passed=True),
                  BarState("gqa", "team 1/2", 1, 300, 1189, "", "", "PgDn: more ▼",  # the note moves down a row
                           [("Enter", "next"), ("^Q", "quit")], passed=True)):
        text = _bar_text(state, width)
        assert all(len(row) <= width for row in text.split("\n")), text
        assert "Enter next" in text, text
        if "^Q quit" in text:
            assert text.index("Enter next") < text.index("^Q quit")


@pytest.mark.parametrize("width", [60, 100])
def test_the_shapes_panel_never_wraps_a_prompt_line_into_a_ragged_pair(catalogue, width):
    """At 60 columns each 75-column line of the prompt became a long line and a short one
    ("     projected. pad_mask is"): the panel refills the prompt's paragraphs instead."""
    from trainer.repl.header import header_fragments
    from trainer.repl.wrap import wrap_all

    spec = catalogue.get("mha-padding")
    text = plain(wrap_all(header_fragments(spec, width - 1, title=False), width - 1))
    prompt_rows = text.split(" dims:")[0].rstrip("\n").split("\n")
    assert all(len(row) <= width - 1 for row in prompt_rows)
    assert not any(row.startswith("     ") for row in prompt_rows), text  # no continuation indent
    assert " ".join(" ".join(prompt_rows).split()) == " ".join(spec.prompt.split())  # every word, in order
    if width == 100:  # lines that fit stay as written
        assert prompt_rows == [f" {line}" for line in spec.prompt.rstrip().splitlines()]
    else:
        assert sum(len(row) < (width - 1) * 0.6 for row in prompt_rows[:-1]) <= 1  # filled, not ragged


def test_the_reference_shown_after_a_pass_imports_what_it_uses(catalogue):
    """mha-padding's reference calls math.sqrt: the code shown carries `import math`."""
    import ast

    from trainer.repl.reference import contract_source

    for spec in catalogue.specs.values():
        shown = contract_source(spec.reference_path, [f.name for f in spec.functions])
        tree = ast.parse(shown)
        bound = {(a.asname or a.name).split(".")[0] for node in tree.body
                 if isinstance(node, (ast.Import, ast.ImportFrom)) for a in node.names}
        full = ast.parse(Path(spec.reference_path).read_text(encoding="utf-8"))
        imported = {(a.asname or a.name).split(".")[0] for node in full.body
                    if isinstance(node, (ast.Import, ast.ImportFrom)) for a in node.names}
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        assert (used & imported) <= bound, (spec.id, sorted((used & imported) - bound))
    mha = contract_source(catalogue.get("mha-padding").reference_path, ["multi_head_attention"])
    assert mha.startswith("import math\n") and "math.sqrt" in mha


def test_under_a_variant_the_answer_shown_is_the_drills_clean_sample_for_it(catalogue):
    """masked-mean under layout=tbd showed the reference's machinery for every layout; it shows the
    drill's own answer for (T, B, d) now, and the reference where no sample is written for a variant."""
    from trainer.repl.reference import variant_solution

    spec = catalogue.get("masked-mean")
    tbd = variant_solution(spec.path, spec.id, {"layout": "tbd"})
    assert "def masked_mean" in tbd and "# variant:" not in tbd and "layout" not in tbd.split("def ")[1]
    assert "(T, B, 1)" in tbd
    assert variant_solution(spec.path, spec.id, {}) == ""
    assert variant_solution(spec.path, spec.id, {"layout": "tbd", "mask": "no-such-value"}) == ""


@pytest.mark.parametrize("opened_under, says_other", [({"layout": "tbd"}, False), ({}, True)])
def test_a_draft_says_when_it_was_written_for_another_variant(mm, _drill_home, opened_under, says_other):
    drafts = Drafts(_drill_home)
    drafts.save("masked-mean", "def masked_mean(x, mask):\n    return x.sum(0)  # (T, B, d) in\n", {"layout": "tbd"})
    assert drafts.load("masked-mean").variant == {"layout": "tbd"}
    asked: list[str] = []

    async def script(repl: DrillRepl, pipe: Any) -> None:
        await until(lambda: repl.question is not None)
        asked.append(repl.question.text)
        typed(pipe, "n")
        await until(lambda: repl.question is None)
        typed(pipe, CTRL_Q)

    spec = mm.under(opened_under) if opened_under else mm
    run_repl(spec, FakeGrading(), _drill_home, script)
    text = " ".join(asked[0].split())
    if says_other:
        assert "was written for layout=tbd; this drill is now under the contract as written" in text
    else:
        assert text.startswith("Restore your unsubmitted draft from") and "written for" not in text
    assert drafts.path("masked-mean").with_name("masked-mean.prev.py").exists()  # declined: kept aside
    assert not (drafts.folder / "masked-mean.variant").exists()
