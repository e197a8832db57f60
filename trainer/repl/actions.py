"""The `:`-commands of the REPL, each registered by the @command decorator.

A part the REPL (trainer.repl.app.DrillRepl) holds. The handlers change the
sitting's counts through its `SittingState` (trainer.repl.state), reach the
screen only through the narrow `Screen` below (the buffer, the output pane, the
bar's message, leaving), ask through `Questions` and start their slow work
(grading, tracing, the editor) as `Jobs`. `commands_of` finds them by their
decorator.
"""
from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable, Coroutine, Protocol

from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.document import Document

from trainer.clock import Clock
from trainer.repl.code import CodeBuffer, not_an_attempt, opening, untouched
from trainer.repl.commands import command, commands_of, key_label
from trainer.repl.drafts import Drafts
from trainer.repl.grading import Grading, comments_later, has_comments, variant_of
from trainer.repl.header import header_fragments
from trainer.repl.reference import contract_source, variant_solution
from trainer.repl.state import ReplOptions, SittingState
from trainer.repl.trace_view import render_trace
from grader.report import Report, Verdict
from trainer.practice.attempts import attempt_from, revealed_attempt
from trainer.repl.jobs import Jobs
from trainer.repl.question import Questions
from trainer.store.records import NewAttempt, RecordResult
from trainer.text.debrief import debrief
from trainer.text.verdict import Fragments, PassInfo, render

if TYPE_CHECKING:
    from grader.spec import Spec

Recorder = Callable[[NewAttempt], RecordResult | None]  # store.record_attempt, or one sitting's


class Screen(Protocol):
    """What the commands need of the screen (trainer.repl.app.DrillRepl)."""

    buffer: CodeBuffer

    def show(self, fragments: Fragments, remake: Callable[[int], Fragments] | None = None) -> None:
        """Put `fragments` in the output pane; `remake(width)` makes them again for another terminal width."""

    def say(self, message: str) -> None:
        """The bottom bar's message (shown at the next redraw)."""

    def redraw(self) -> None: ...

    def columns(self) -> int:
        """The terminal's width."""

    def background(self, coroutine: Coroutine[Any, Any, None]) -> object: ...

    def finish(self, status: str, stop: bool = False) -> None:
        """Leave the drill (the draft written first)."""


@dataclass(frozen=True)
class Setup:
    """What the commands work with that stays the same for the whole sitting."""

    spec: Spec
    options: ReplOptions
    grading: Grading
    clock: Clock
    started_at: datetime  # clock.now() when the drill opened: the attempts' start
    record: Recorder | None
    drafts: Drafts | None
    edit: Callable[..., Any]  # trainer.repl.editor.edit_text, or a test's


class DrillCommands:
    """The handlers: they change `state` through its methods, show on `screen`; slow work
    goes to `jobs`, questions to `questions`."""

    def __init__(self, setup: Setup, state: SittingState, screen: Screen, jobs: Jobs, questions: Questions):
        self.setup = setup
        self.spec = setup.spec
        self.options = setup.options
        self.state = state
        self.screen = screen
        self.jobs = jobs
        self.questions = questions
        self.last_verdict: Callable[[int], Fragments] | None = None  # the last verdict at a width (:last)
        self._grading_at_open: float = getattr(setup.clock, "grading_seconds", 0.0)  # a flow's clock runs on
        self._grading_at_pass: float | None = None

    def _now(self) -> float:
        return self.setup.clock.monotonic()

    def grading_seconds(self) -> float:
        """The grader's time on this drill so far, left out of the person's (frozen at the first pass)."""
        if self._grading_at_pass is not None:
            return self._grading_at_pass
        return max(0.0, getattr(self.setup.clock, "grading_seconds", 0.0) - self._grading_at_open)

    def _elapsed(self) -> float:
        return self.state.elapsed(self._now())

    def _unsubmitted(self) -> bool:
        return self.state.unsubmitted(self.screen.buffer.text)

    @command("submit", help="grade the buffer on every case", key="c-s")
    def cmd_submit(self, _arg: str = "") -> None:
        source = self.screen.buffer.text
        self.screen.buffer.append_to_history()
        why = not_an_attempt(source, self.state.skeleton, unchanged_counts=self.options.followup is not None)
        if why is not None:
            self.screen.show([("class:fail bold", "Not graded, not counted"),
                              ("", f": {why}. It is no submit (the rating and the submit count are as they were); "
                                   f"the clock goes on.\n")])
            return
        self.state.submitting(source)
        elapsed = self._elapsed()
        seed = self.options.seed
        variant = variant_of(self.spec)  # the variant the drill was opened under (Spec.under)
        grading = self.setup.grading
        later = comments_later(grading) and has_comments(source)  # the shape comments follow the verdict
        extra: dict[str, Any] = {"comments": False} if later else {}
        self.jobs.spawn("grading…", lambda: grading.grade(self.spec.id, source, "<buffer>", seed, **variant, **extra),
                        lambda result: self._graded(result, source, elapsed, comments_pending=later), grading=True)

    def _graded(self, result: Report, source: str, elapsed: float, comments_pending: bool = False) -> None:
        first_pass = not self.state.passed()
        verdict = self.state.graded(result, source, elapsed)
        first_pass = first_pass and self.state.passed()
        if first_pass:
            self._grading_at_pass = self.grading_seconds()
        recorded = self._record(result, source, elapsed)
        if first_pass and self.options.on_pass is not None:
            try:
                self.options.on_pass(self.state.outcome("passed", self._elapsed()))
            except Exception as exc:  # noqa: BLE001 - a write problem must not take the pass away
                self.screen.say(f"could not save the result: {exc}")
        info = None
        if verdict == Verdict.PASS:
            due = getattr(recorded, "due", None) if self.options.followup is None else None  # told at the drill's pass
            info = PassInfo(elapsed, float(self.spec.target_seconds), due,
                            self.setup.clock.now(),
                            self._reference() if self.options.show_reference else "",
                            self.spec.seed_trap if self.options.show_reference else "",
                            self.grading_seconds(), self._reference_title())
            if self.setup.drafts is not None:
                self.setup.drafts.clear(self.spec.id)
        footer = "The buffer is kept: fix it and :submit again."
        if len(result.failing) > 1 and not result.alone:
            footer += " :verbose lists every failing case."
        debriefed = verdict == Verdict.PASS and first_pass and self.options.debug is not None
        nxt = ""
        if verdict == Verdict.PASS:
            if not self.options.in_flow and self.state.next_offer is None and self.options.next_drill is not None:
                self.state.offer_next(self._next_drill())
            if self.options.in_flow:
                then = self.options.next_text or ("the summary" if self.options.last else "the next item")
                nxt = f"Enter (or ^N): {then}"
            elif self.state.next_offer is not None:
                nxt = f"Enter: the next drill, {self.state.next_offer[0]}; :quit (^Q) to leave"
            else:
                nxt = ":quit (^Q) to leave"

        def at(width: int) -> Fragments:  # made again at the new width when the terminal is resized
            fragments = render(result, "full", width=width, info=info, footer=footer, title=False)
            if debriefed:
                fragments += self._debrief(source, width)
            if nxt:
                fragments.append(("class:dim", f"  {nxt}\n"))
            return fragments

        self._show_verdict(at)
        shrink = result.shrink_target is not None and self.options.mode != "mock"  # a mock gives no help
        if comments_pending or shrink:
            self._after_verdict(result, source, footer, comments_pending, shrink)

    def _show_verdict(self, at: Callable[[int], Fragments]) -> None:
        self.last_verdict = at
        self._show_at(at)

    def _show_at(self, at: Callable[[int], Fragments]) -> None:
        """Show what `at(width)` makes for the terminal's width, made again if the terminal is resized."""
        self.screen.show(at(self.screen.columns() - 1), remake=at)

    def _after_verdict(self, result: Report, source: str, footer: str, comments_pending: bool, shrink: bool) -> None:
        """After the verdict is shown, off its clock and in the warm grader: the shape comments
        (grader.judge.shape_comments, a traced run of their own), then, for a failure, the smallest
        sizes that still fail (grader.judge.smallest); the verdict is shown again with each."""
        grading = self.setup.grading
        seed = result.seed if result.seed is not None else self.options.seed
        variant = variant_of(self.spec)

        def current() -> bool:
            return self.state.last_result is result  # not graded again meanwhile

        async def job() -> None:
            loop = asyncio.get_running_loop()
            if comments_pending:
                try:
                    found = await loop.run_in_executor(None, lambda: grading.shape_comments(  # type: ignore[attr-defined]
                        self.spec.id, source, "<buffer>", seed, **variant))
                except Exception:  # noqa: BLE001 - an extra after the verdict: it never breaks the REPL
                    found = None
                if found and current():
                    result.shape_comments = list(found)
                    if self.last_verdict is not None:
                        self._show_verdict(self.last_verdict)  # made from `result`: now with its comments
            if not shrink or not current():
                return
            try:
                smallest = await loop.run_in_executor(None, lambda: grading.smallest(result, source))
            except Exception:  # noqa: BLE001 - an extra after the verdict: it never breaks the REPL
                return
            if smallest is None or not current():
                return  # nothing found, or graded again meanwhile
            result.smallest = smallest
            self._show_verdict(lambda width: render(result, "full", width=width, title=False,
                                                    footer=footer + " :try runs the smallest failing case."))

        self.jobs.background(job())

    def _debrief(self, source: str, width: int) -> Fragments:
        planted = self.options.debug
        assert planted is not None
        message = next((t.message for t in self.spec.traps if t.id == planted.trap), "")
        return debrief(planted, source, message, width=width)

    def _next_drill(self) -> tuple[str, str] | None:
        try:
            next_drill = self.options.next_drill
            return next_drill() if next_drill is not None else None
        except Exception:  # noqa: BLE001 - a store problem must not take the pass away
            return None

    def _record(self, result: Report | None, source: str, elapsed: float) -> Any:
        """Store one attempt (a graded report, or None for a revealed solution)."""
        if self.setup.record is None:
            return None
        common: dict[str, Any] = dict(drill=self.spec.id, mode=self.options.mode, started_at=self.setup.started_at,
                      seconds=elapsed, code=source, hints=self.state.hints, session_id=self.options.flow_id,
                      target_seconds=float(self.spec.target_seconds), first_try=self.state.attempts <= 1)
        if self.options.debug is not None:
            common.update(kind="debug", debug_trap=self.options.debug.trap)
        elif self.options.followup is not None:
            common.update(kind="followup")
        attempt = revealed_attempt(**common, variant=self.spec.variant) if result is None else attempt_from(
            result, revealed=self.state.revealed, **common)
        try:
            return self.setup.record(attempt)
        except Exception as exc:  # noqa: BLE001 - a store problem must not lose the buffer
            self.screen.say(f"could not record the attempt: {exc}")
            return None

    def _reference_title(self) -> str:
        variant = dict(getattr(self.spec, "variant", None) or {})
        if variant and variant_solution(self.spec.path, self.spec.id, variant):
            return "A solution under " + " ".join(f"{k}={v}" for k, v in sorted(variant.items()))
        return "Reference solution"

    def _reference(self) -> str:
        """The clean answer for the convention solved: under a variant, the drill's sample for it when
        it has one (the reference itself serves every convention through its keywords)."""
        variant = dict(getattr(self.spec, "variant", None) or {})
        written = variant_solution(self.spec.path, self.spec.id, variant) if variant else ""
        return written or contract_source(self.spec.reference_path, [f.name for f in self.spec.functions])

    async def time_up(self) -> None:
        """A mock's 0:00: the buffer is frozen; a grade in flight is waited for, and work no
        submit has graded yet is graded and counted, before the drill ends."""
        state, jobs = self.state, self.jobs
        while (state.left(self._now()) or 0) > 0:
            await asyncio.sleep(0.2)
        jobs.closing = True
        jobs.pending.clear()
        self.questions.question = None
        while jobs.busy:
            await asyncio.sleep(0.05)
        if not state.passed() and self._unsubmitted():
            source = self.screen.buffer.text
            state.submitting(source)
            elapsed = self._elapsed()
            jobs.busy = "time is up: grading your last buffer…"
            self.screen.redraw()
            drill, seed, grading, variant = self.spec.id, self.options.seed, self.setup.grading, variant_of(self.spec)
            token = object()
            jobs.pause_for(token)
            try:
                result = await asyncio.get_running_loop().run_in_executor(
                    None, lambda: grading.grade(drill, source, "<buffer>", seed, **variant))
            finally:
                jobs.resume_for(token)
            jobs.busy = ""
            self._graded(result, source, elapsed)
        self.screen.finish("timeout", stop=True)

    @command("last", help="the last verdict again")
    def cmd_last(self, _arg: str = "") -> None:
        if self.last_verdict is None:
            self.screen.show([("class:dim", "Nothing graded yet: :submit (^S) grades the buffer.\n")])
            return
        self._show_verdict(self.last_verdict)

    @command("verbose", help="the last verdict with every case (as drill check --verbose)")
    def cmd_verbose(self, _arg: str = "") -> None:
        result = self.state.last_result
        if result is None:
            self.screen.show([("class:dim", "Nothing graded yet: :submit (^S) grades the buffer.\n")])
            return
        self._show_at(lambda width: render(result, "full", width=width, verbose=True, title=False))

    @command("try", help="run on the smallest failing case found (`:try example`: the example inputs) and show "
                        "every intermediate shape", key="c-t",
             lockable=True)
    def cmd_try(self, _arg: str = "") -> None:
        source = self.screen.buffer.text
        last = self.state.last_result  # after a failure, the smallest failing case it found (else the example)
        at = last.smallest if last is not None and _arg.strip() != "example" else None
        seed = last.seed if last is not None else None
        variant = variant_of(self.spec)
        self.jobs.spawn("running the example…",
                        lambda: self.setup.grading.trace(self.spec.id, source, "<buffer>", at=at, seed=seed, **variant),
                        lambda result: self.screen.show(render_trace(result)))

    @command("hint", help="the next hint (counted)", key="c-g", lockable=True)
    def cmd_hint(self, _arg: str = "") -> None:
        hints = list(self.spec.hints)
        if not hints:
            self.screen.show([("class:dim", "This drill has no hints.\n")])
            return
        shown_count = self.state.hint_shown(len(hints))
        shown: Fragments = []
        for i, text in enumerate(hints[:shown_count], 1):
            shown.append(("class:head", f"hint {i}/{len(hints)}: "))
            shown.append(("", f"{text}\n"))
        if shown_count >= len(hints):
            shown.append(("class:dim", "That was the last hint.\n"))
        self.screen.show(shown)

    @command("shapes", help="the prompt and the shape ledger", key="c-l", aliases=("ledger", "prompt"))
    def cmd_shapes(self, _arg: str = "") -> None:
        self._show_at(lambda width: header_fragments(self.spec, width, title=False))

    @command("reset", help="start again from the skeleton (asks first)")
    def cmd_reset(self, _arg: str = "") -> None:
        buffer, skeleton, drafts = self.screen.buffer, self.state.skeleton, self.setup.drafts

        def answered(yes: bool) -> None:
            if yes:
                if drafts is not None and buffer.text.strip() != skeleton.strip():
                    drafts.save(self.spec.id + ".prev", buffer.text)
                buffer.set_document(Document(skeleton, opening(skeleton)))
                self.screen.say(f"reset; the old buffer is in drafts/{self.spec.id}.prev.py")

        self.questions.ask("Replace the buffer with the skeleton?", answered)

    @command("edit", help="open the buffer in $VISUAL (else $EDITOR); load it back when the editor exits", key="c-o")
    def cmd_edit(self, _arg: str = "") -> None:
        text = self.screen.buffer.text
        self.jobs.busy = "editing…"

        async def job() -> None:
            try:
                result = await run_in_terminal(lambda: self.setup.edit(text, self.spec.id), in_executor=True)
                if result.text is None:
                    self.screen.say(result.problem)
                else:
                    new = result.text if result.text.endswith("\n") else result.text + "\n"
                    self.screen.buffer.set_document(Document(new, len(new)))
                    self.screen.say("loaded from the editor")
            finally:
                self.jobs.done()
            self.screen.redraw()

        self.screen.background(job())

    @command("solution", help="reveal the reference solution (counts as a fail)", lockable=True)
    def cmd_solution(self, _arg: str = "") -> None:
        def answered(yes: bool) -> None:
            if not yes:
                return
            if self.state.reveal(self._elapsed()):
                self._record(None, self.screen.buffer.text, self._elapsed())
            out: Fragments = [("class:head bold", self._reference_title()),
                              ("class:dim", " (recorded as a fail; it comes back soon)\n")]
            out += [("class:code", f"    {line}\n") for line in self._reference().splitlines()]
            if self.spec.solution_notes.strip():
                out += [("class:why", f"  {line.strip()}\n") for line in self.spec.solution_notes.strip().splitlines()]
            self.screen.show(out)

        if self.state.passed() or self.state.revealed:
            answered(True)
        else:
            self.questions.ask("Reveal the reference? It counts as a fail.", answered)

    @command("skip", help="leave this drill without grading it")
    def cmd_skip(self, _arg: str = "") -> None:
        self.screen.finish("skipped")

    @command("next", help="after a pass: on to the next item (Enter, ^N)")
    def cmd_next(self, _arg: str = "") -> None:
        if self.options.in_flow or self.state.chose_next():
            self.screen.finish("next")
        else:
            self.screen.say(":next opens the next drill after a pass; :quit leaves" if self.options.next_drill
                            else ":next is for warm-ups and mocks; :quit leaves")
            self.screen.redraw()

    @command("quit", help="leave (asks when the buffer has unsubmitted changes)", key="c-q", aliases=("q", "exit"))
    def cmd_quit(self, _arg: str = "") -> None:
        if self.options.in_flow:
            self.ask_leave_flow()
        elif self._unsubmitted():
            self.questions.ask("Leave with unsubmitted changes? They stay as a draft.",
                     lambda yes: self.screen.finish("quit", stop=True) if yes else None)
        else:
            self.screen.finish("quit", stop=True)

    def interrupt(self) -> None:
        """Ctrl-C: never loses the buffer; asks before leaving."""
        if self.options.in_flow:
            self.ask_leave_flow()
            return
        # an untouched skeleton is no draft (trainer.repl.app's _save_draft): the question says so only for work
        kept = "" if untouched(self.screen.buffer.text, self.state.skeleton) else " Your buffer is kept as a draft."
        self.questions.ask(f"Leave this drill?{kept}",
                 lambda yes: self.screen.finish("quit", stop=True) if yes else None)

    def ask_leave_flow(self) -> None:
        """In a warm-up, a mock interview or a team session: skip this drill, or end the whole of it."""
        kind = {"warmup": "warm-up", "mock": "mock interview", "team": "team session"}.get(self.options.mode,
                                                                                          "session")
        self.questions.choose("Leave this drill?", [
            ("s", "next item" if self.state.passed() else "skip it", lambda: self.screen.finish("skipped")),
            ("e", f"end the {kind}", lambda: self.screen.finish("quit", stop=True)),
        ])

    @command("help", help="list the commands", aliases=("h",))
    def cmd_help(self, _arg: str = "") -> None:
        out: Fragments = [("class:head bold", "Commands")]
        out.append(("class:dim", " (type on a line of their own and press Enter, or press the key)\n"))
        seen = set()
        for cmd in commands_of(self).values():
            if cmd.info.name in seen:
                continue
            seen.add(cmd.info.name)
            key = key_label(cmd.info.key) if cmd.info.key else ""
            locked = "  (locked)" if cmd.info.name in self.options.locked else ""
            out.append(("class:code", f"  :{cmd.info.name:<9}"))
            out.append(("class:dim", f"{key:<4}"))
            out.append(("", f"{cmd.info.help}{locked}\n"))
        out.append(("class:dim", "  PageUp/PageDown scroll this pane; Alt-P/Alt-N bring back earlier submissions;\n"))
        out.append(("class:dim", "  Ctrl-C asks before leaving.\n"))
        self.screen.show(out)
