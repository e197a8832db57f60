"""The REPL on one drill: the screen, a prompt_toolkit application, composed of the
sitting's state (repl.state), the open question (repl.question), the background job
(repl.jobs) and the `:`-commands (repl.actions).

Layout, top to bottom: the header (prompt and shape ledger, folded to one line
while there is output to read), the editor (the buffer, pre-filled with the
skeleton), the output pane (verdicts, :try shapes, hints) and the bottom bar.
Grading runs in a thread so the countdown keeps ticking.
"""
from __future__ import annotations

import asyncio
import signal
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Coroutine

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.document import Document
from prompt_toolkit.enums import EditingMode
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output
from prompt_toolkit.layout import (ConditionalContainer, Dimension, FormattedTextControl, HSplit, Layout, Window)
from prompt_toolkit.layout.controls import BufferControl
from prompt_toolkit.layout.margins import NumberedMargin
from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding.vi_state import InputMode
from prompt_toolkit.lexers import PygmentsLexer
from pygments.lexers.python import PythonLexer

from trainer.repl import editor as editor_mod
from trainer.repl.code import CodeBuffer, opening, untouched, without_commands
from trainer.clock import Clock, person_clock
from trainer.repl.actions import DrillCommands, Recorder, Setup
from trainer.repl.commands import Command, commands_of, key_label, parse_command_line
from trainer.repl.drafts import Drafts, variant_words
from trainer.repl.grading import Grading
from trainer.repl.header import fitted_header, title_fragments
from trainer.repl.jobs import Jobs
from trainer.repl.question import Question, Questions
from trainer.repl.keys import build_key_bindings
from trainer.repl.state import DrillOutcome, FollowUpAsk, ReplOptions, SittingState
from trainer.repl.style import repl_style
from trainer.repl.toolbar import BarState, bar
from trainer.text.verdict import Fragments, plain
from trainer.repl.wrap import lines_of, visible, wrap_line


def rows(fragments: Fragments, width: int) -> int:
    """Screen rows the fragments take when wrapped at `width` columns."""
    width = max(10, width)
    return sum(max(1, -(-len(plain(line)) // width)) for line in lines_of(fragments))


if TYPE_CHECKING:
    from grader.spec import Spec


def followup_fragments(followup: FollowUpAsk) -> Fragments:
    """The output pane a follow-up opens with: the interviewer's words, then how to go on."""
    out: Fragments = [("class:head bold", "Follow-up"), ("", "\n")]
    for paragraph in followup.ask:
        out.append(("", f"{paragraph}\n"))
    out.append(("class:dim", "Your passing code is in the buffer: adapt it and :submit (^S). "
                             ":shapes shows the prompt as it reads now.\n"))
    return out


class DrillRepl:
    """One drill in the editor. `run()` blocks until the person leaves; returns a DrillOutcome.

    It is the screen (the buffer, the output pane, the bar, the key bindings) and holds
    four parts: the sitting's counts (`state`), the open question (`questions`), the
    background job (`jobs`) and the `:`-command handlers (`actions`), each given what it
    needs."""

    def __init__(self, spec: Spec, grading: Grading, *, record: Recorder | None = None, home: Path | None = None,
                 clock: Clock | None = None, options: ReplOptions | None = None, input: Input | None = None,
                 output: Output | None = None, history: History | None = None, editor: Callable[..., Any] | None = None):
        self.spec = spec
        self.grading = grading
        self.record = record
        # the person's time: it stops while a submit is graded (a flow passes the one its countdown runs on)
        self.clock = person_clock(clock)
        self.options = options or ReplOptions()
        debug, followup = self.options.debug, self.options.followup
        # a round's buffer, and a follow-up's (the person's own passing code), is no draft
        self.drafts = Drafts(home) if home is not None and debug is None and followup is None else None
        self.edit = editor or editor_mod.edit_text
        self.skeleton = debug.code if debug is not None else followup.code if followup is not None \
            else spec.skeleton()
        self.started_at: datetime = self.clock.now()
        self.state = SittingState(spec.id, self.skeleton, self.clock.monotonic(), self.options.deadline)
        self.output: Fragments = []
        self.output_offset = 0
        self._remake: Callable[[int], Fragments] | None = None  # the output made again for a new width
        self._made_for = 0  # the width the output was made for
        self.header_open = True
        self.questions = Questions(self.redraw)
        self.jobs = Jobs(grading, redraw=self.redraw, background=self.background, say=self.say,
                         asking=lambda: self.question is not None, run_command=self._run_queued, clock=self.clock)
        self._keep_output = False  # a queued command is running: its output goes below the verdict
        setup = Setup(spec, self.options, grading, self.clock, self.started_at, record, self.drafts, self.edit)
        self.actions = DrillCommands(setup, self.state, self, self.jobs, self.questions)
        self.vi_return: tuple[str, int, str] | None = None  # where ':' in vi normal mode was pressed
        self._wrote_draft = False
        self.message = ""
        self.commands: dict[str, Command] = commands_of(self.actions)
        if history is None:
            history = FileHistory(str(self._history_path(home))) if home is not None else InMemoryHistory()
        start = 0 if debug is not None else opening(self.skeleton)  # a round gives no hint of where to look
        self.buffer = CodeBuffer(document=Document(self.skeleton, start), multiline=True,
                                 history=history, on_text_changed=self._changed,
                                 read_only=Condition(lambda: self.jobs.closing))
        self.buffer.skeleton = self.skeleton
        self.app = self._build(input, output)
        if followup is not None:
            self.show(followup_fragments(followup))
        self._offer_draft()

    # ---------------------------------------------------------------- parts

    @property
    def question(self) -> Question | None:
        """The question open in the bottom bar, if any."""
        return self.questions.question

    @property
    def busy(self) -> str:
        """What the job in flight does ("grading…"), or ""."""
        return self.jobs.busy

    def redraw(self) -> None:
        self.app.invalidate()

    def background(self, coroutine: Coroutine[Any, Any, None]) -> object:
        return self.app.create_background_task(coroutine)

    def say(self, message: str) -> None:
        """The bottom bar's message."""
        self.message = message

    def ask(self, text: str, on_answer: Callable[[bool], Any]) -> None:
        self.questions.ask(text, on_answer)

    def press(self, key: str) -> None:
        self.questions.press(key)

    def cancel_question(self) -> None:
        self.questions.cancel_question()

    def cancel_job(self) -> bool:
        return self.jobs.cancel_job()

    def interrupt(self) -> None:
        self.actions.interrupt()

    # ---------------------------------------------------------------- state

    def elapsed(self) -> float:
        """Seconds on this drill: up to the pass, or to the run's 0:00."""
        return self.state.elapsed(self.clock.monotonic())

    def left(self) -> float | None:
        return self.state.left(self.clock.monotonic())

    def passed(self) -> bool:
        return self.state.passed()

    def unsubmitted(self) -> bool:
        """The buffer holds work that no submit has graded."""
        return self.state.unsubmitted(self.buffer.text)

    def show(self, fragments: Fragments, remake: Callable[[int], Fragments] | None = None) -> None:
        """Replace the output pane with `fragments`; output of a command typed ahead while a
        grade ran goes below that verdict instead, scrolled to (PgUp brings the verdict back).
        `remake(width)`: the same output for another width, made when the terminal is resized
        (a verdict folded at the old width would otherwise be folded again, raggedly)."""
        new = list(fragments)
        self._remake, self._made_for = None, self.columns() - 1
        if self._keep_output and self.output:
            width = self.columns() - 1
            above = self.output
            while above and above[-1][1] == "\n":  # a trailing newline: the rule comes right under
                above = above[:-1]
            above = above + [("", "\n"), ("class:rule", "┄" * min(width, 40)), ("", "\n")]
            self.output_offset = sum(len(wrap_line(line, width)) for line in lines_of(above)) - 1
            self.output = above + new
        else:
            self.output = new
            self.output_offset = 0
            self._remake = remake
        self.header_open = False
        self.app.invalidate()

    def _run_queued(self, name: str, arg: str) -> None:
        """A command typed while a job ran, run now that it ended: what it shows is added below
        the job's output, never instead of it."""
        self._keep_output = True
        try:
            self.run_command(name, arg)
        finally:
            self._keep_output = False

    def finish(self, status: str, stop: bool = False) -> None:
        self._save_draft()
        future = self.app.future
        if self.app.is_running and future is not None and not future.done():
            self.app.exit(result=self.outcome(status, stop))

    def outcome(self, status: str, stop: bool = False) -> DrillOutcome:
        draft = self.drafts is not None and self.drafts.path(self.spec.id).exists()
        outcome = self.state.outcome(status, self.elapsed(), stop=stop, draft=draft)
        outcome.grading_seconds = self.actions.grading_seconds()
        return outcome

    # -------------------------------------------------------------- drafts

    def _history_path(self, home: Path) -> Path:
        """DRILL_HOME/history/<id>.txt, for every sitting (a debug round and a follow-up keep no draft, and
        their history once landed in the current folder)."""
        folder = Path(home) / "history"
        folder.mkdir(parents=True, exist_ok=True)
        return folder / f"{self.spec.id}.txt"

    def _changed(self, _buffer: Buffer) -> None:
        self._save_draft()

    def _save_draft(self) -> None:
        """The buffer, less any `:`-line, as the drill's draft; an untouched buffer is no draft
        (one this REPL wrote earlier goes)."""
        if self.drafts is None:
            return
        if (self.passed() or self.jobs.closing) and not self.unsubmitted():
            # the passing code is in the store; so is the buffer a mock's 0:00 graded (jobs.closing):
            # it is not "unsubmitted" work to offer back
            self.drafts.clear(self.spec.id)
            return
        text = without_commands(self.buffer.text)
        if untouched(text, self.skeleton):
            if self._wrote_draft:
                self.drafts.clear(self.spec.id)
                self._wrote_draft = False
            return
        self.drafts.save(self.spec.id, text, self._variant())
        self._wrote_draft = True

    def _variant(self) -> dict[str, str]:
        return dict(getattr(self.spec, "variant", None) or {})

    def _offer_draft(self) -> None:
        if self.drafts is None:
            return
        draft = self.drafts.load(self.spec.id)
        text = without_commands(draft.text) if draft is not None else ""
        if draft is None:
            return
        if untouched(text, self.skeleton):
            self.drafts.clear(self.spec.id)  # nothing of the person's in it (an old `:quit`, say)
            return
        drafts, lines = self.drafts, len(text.splitlines())
        stamp = draft.saved_at.astimezone().strftime("%d %b %H:%M")

        def answered(yes: bool) -> None:
            if yes:
                self.buffer.set_document(Document(text, len(text)), bypass_readonly=True)
                self.message = "draft restored"
            else:
                drafts.set_aside(self.spec.id)
                self.message = f"draft kept as drafts/{self.spec.id}.prev.py"

        question = f"Restore your unsubmitted draft from {stamp} ({lines} lines)?"
        if draft.variant != self._variant():  # code for another convention is offered as what it is
            question = (f"Your unsubmitted draft from {stamp} ({lines} lines) was written for "
                        f"{variant_words(draft.variant)}; this drill is now under {variant_words(self._variant())}. "
                        f"Restore it anyway?")
        self.ask(question, answered)

    # ------------------------------------------------------------ running

    def run(self) -> DrillOutcome:
        return self.app.run(pre_run=self._pre_run)

    async def run_async(self) -> DrillOutcome:
        return await self.app.run_async(pre_run=self._pre_run)

    def _pre_run(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGHUP, signal.SIGTERM):
            try:
                loop.add_signal_handler(sig, self._hangup)
            except (NotImplementedError, RuntimeError, ValueError):
                pass
        if self.options.deadline is not None:
            self.app.create_background_task(self.actions.time_up())

    def _hangup(self) -> None:
        """A closed terminal: the draft is written before anything else."""
        self._save_draft()
        self.finish("quit", stop=True)

    def run_line(self, line: str) -> bool:
        """Run a `:`-line; False when the line is not a command."""
        parsed = parse_command_line(line)
        if parsed is None:
            return False
        name, arg = parsed
        cmd = self.commands.get(name)
        if cmd is None:
            self.show([("class:fail", f"unknown command :{name}"), ("", " — :help lists them\n")])
            return True
        self.run_command(cmd.info.name, arg)
        return True

    def run_command(self, name: str, arg: str = "") -> None:
        if self.question is not None or self.jobs.closing:
            return
        cmd = self.commands[name]
        if cmd.info.name in self.options.locked:
            self.message = f":{cmd.info.name} is locked in a mock interview"
            self.app.invalidate()
            return
        if self.busy and cmd.info.name != "help":
            # typed ahead (":edit" then ":submit" at once): run it when the current job ends
            self.jobs.pending.append((cmd.info.name, arg))
            self.message = f":{cmd.info.name} queued"
            self.app.invalidate()
            return
        cmd.run(arg)

    # ------------------------------------------------------------- layout

    def goes_on(self) -> bool:
        """After a pass, with the buffer as it passed: Enter (and ^N) go to the next item."""
        return self.passed() and not self.unsubmitted() and (self.options.in_flow
                                                              or self.state.next_offer is not None)

    def key_hints(self) -> list[tuple[str, str]]:
        names = ["submit", "try", "hint", "shapes", "edit", "quit"]
        hints = []
        if self.goes_on():
            names = ["quit"]
            offer = self.state.next_offer
            hints.append(("Enter", f"next: {offer[0]}" if offer else "next"))
        for name in names:
            info = self.commands[name].info
            if name in self.options.locked or not info.key:
                continue
            hints.append((key_label(info.key), name))
        return hints

    def output_clipped(self) -> bool:
        """True when the output pane shows less than it holds (PgDn scrolls)."""
        info = getattr(self, "output_window", None) and self.output_window.render_info
        if not info or not self.output:
            return False
        return rows(self.output_view(), info.window_width) > info.window_height

    def output_view(self) -> Fragments:
        """The output pane's text from the scroll offset on, without a trailing newline."""
        width = self.columns()
        if self._remake is not None and width - 1 != self._made_for:  # resized: made again, from the top
            self._made_for = width - 1
            self.output, self.output_offset = list(self._remake(width - 1)), 0
        lines = [piece for line in lines_of(visible(self.output)) for piece in wrap_line(line, width - 1)]
        lines = lines[self.output_offset:]
        while lines and not plain(lines[-1]).strip():
            lines.pop()
        out: Fragments = []
        for i, line in enumerate(lines):
            out.extend(line)
            if i < len(lines) - 1:
                out.append(("", "\n"))
        return out

    def columns(self) -> int:
        try:
            return int(self.app.output.get_size().columns)
        except Exception:  # noqa: BLE001 - no terminal yet
            return 100

    def bar_state(self) -> BarState:
        message = self.message
        if self.output_clipped():
            message = (message + "  " if message else "") + "PgDn: more ▼"
        if self.output and self.output_offset > 0:
            message = (message + "  " if message else "") + "PgUp: above ▲"
        busy = f"{self.busy} Esc cancels" if self.busy and self.jobs.cancellable else self.busy
        question = self.question
        return BarState(self.spec.id, self.options.label, self.elapsed(), float(self.spec.target_seconds),
                        self.left(), busy, question.text if question else "", message,
                        self.key_hints(), self.passed(), self.vi_mode(),
                        [] if question is None or question.yes_no else [(k, what) for k, what, _ in question.choices])

    def vi_mode(self) -> str:
        """INSERT / NORMAL / REPLACE in vi mode; "" with emacs keys."""
        if not self.options.vi:
            return ""
        try:
            mode = self.app.vi_state.input_mode
        except AttributeError:
            return ""
        return {InputMode.INSERT: "INSERT", InputMode.NAVIGATION: "NORMAL", InputMode.REPLACE: "REPLACE",
                InputMode.INSERT_MULTIPLE: "INSERT", InputMode.REPLACE_SINGLE: "REPLACE"}.get(mode, "")

    def _build(self, input: Input | None, output: Output | None) -> Application:
        def header() -> Fragments:
            width = self.columns() - 1
            if not self.header_open:
                return title_fragments(self.spec, width)
            try:
                rows_ = self.app.output.get_size().rows
            except Exception:  # noqa: BLE001
                rows_ = 40
            return fitted_header(self.spec, width, max(4, int(rows_ * 0.45)))

        def header_height() -> Dimension:
            n = rows(header(), width())
            return Dimension(min=1, max=n, preferred=n)

        output_text = self.output_view

        def output_height() -> Dimension:
            n = max(1, rows(output_text(), width()))
            return Dimension(min=min(n, 3), max=n, preferred=n)

        def width() -> int:
            try:
                return self.app.output.get_size().columns
            except Exception:  # noqa: BLE001
                return 100

        has_output = Condition(lambda: bool(self.output))
        self.output_window = Window(FormattedTextControl(output_text), height=output_height, wrap_lines=True)
        # long lines wrap (the line number stays on a line's first row): nothing scrolls sideways
        editor = Window(BufferControl(self.buffer, lexer=PygmentsLexer(PythonLexer)),
                        left_margins=[NumberedMargin()], height=Dimension(min=3, weight=1), wrap_lines=True)

        def bar_fragments() -> Fragments:
            return bar(self.bar_state(), width())

        def bar_height() -> Dimension:
            n = min(3, rows(bar_fragments(), width()))
            return Dimension(min=n, max=n, preferred=n)
        root = HSplit([
            Window(FormattedTextControl(header), height=header_height, wrap_lines=True, style="class:header"),
            Window(height=1, char="─", style="class:rule"),
            editor,
            ConditionalContainer(Window(height=1, char="─", style="class:rule"), filter=has_output),
            ConditionalContainer(self.output_window, filter=has_output),
            Window(FormattedTextControl(bar_fragments), height=bar_height, wrap_lines=True, style="class:bar"),
        ])
        self.scroll_page = lambda direction: self._scroll(direction, max(3, (self.app.output.get_size().rows // 3)))
        return Application(
            layout=Layout(root, focused_element=editor),
            key_bindings=build_key_bindings(self),
            style=repl_style(),
            full_screen=True,
            mouse_support=False,
            editing_mode=EditingMode.VI if self.options.vi else EditingMode.EMACS,
            refresh_interval=0.5,
            input=input,
            output=output,
        )

    def _scroll(self, direction: int, page: int) -> None:
        total = self.output_offset + len(lines_of(self.output_view()))
        self.output_offset = max(0, min(total - 1, self.output_offset + direction * page))
        self.app.invalidate()
