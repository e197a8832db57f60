"""The `:`-commands of the REPL, each registered by the @command decorator.

A part the REPL (trainer.repl.app.DrillRepl) holds: the handlers act on the
drill's state the REPL keeps — the buffer, the output pane, the counts — ask
through its `Questions` and start their slow work (grading, tracing, the
editor) as its `Jobs`. `commands_of` finds them by their decorator.
"""
from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.document import Document

from trainer.repl.code import opening
from trainer.repl.commands import command, key_label
from trainer.repl.header import header_fragments
from trainer.repl.reference import contract_source
from trainer.repl.trace_view import render_trace
from grader.report import Report, Verdict
from trainer.practice.attempts import attempt_from, revealed_attempt
from trainer.repl.jobs import Jobs
from trainer.repl.question import Questions
from trainer.text.verdict import Fragments, PassInfo, render

if TYPE_CHECKING:
    from trainer.repl.app import DrillRepl


class DrillCommands:
    """The handlers, acting on one drill's state (`drill`); slow work goes to `jobs`,
    questions to `questions`."""

    def __init__(self, drill: DrillRepl, jobs: Jobs, questions: Questions):
        self.drill = drill
        self.jobs = jobs
        self.questions = questions

    @command("submit", help="grade the buffer on every case", key="c-s")
    def cmd_submit(self, _arg: str = "") -> None:
        source = self.drill.buffer.text
        self.drill.buffer.append_to_history()
        self.drill.submitted_text = source
        elapsed = self.drill.elapsed()
        seed = self.drill.options.seed
        self.jobs.spawn("grading…", lambda: self.drill.grading.grade(self.drill.spec.id, source, "<buffer>", seed),
                    lambda result: self._graded(result, source, elapsed))

    def _graded(self, result: Report, source: str, elapsed: float) -> None:
        self.drill.attempts += 1
        self.drill.last_result = result
        self.drill.graded_code = source
        self.drill.results.append(result)
        verdict = Verdict.of(result.verdict)
        if result.trap:
            self.drill.traps.append(result.trap.id)
        first_pass = verdict == Verdict.PASS and not self.drill.passed()
        if first_pass:
            self.drill.passed_at = self.drill.started + elapsed
        recorded = self._record(result, source, elapsed)
        if first_pass and self.drill.options.on_pass is not None:
            try:
                self.drill.options.on_pass(self.drill.outcome("passed"))
            except Exception as exc:  # noqa: BLE001 - a write problem must not take the pass away
                self.drill.message = f"could not save the result: {exc}"
        info = None
        if verdict == Verdict.PASS:
            info = PassInfo(elapsed, float(self.drill.spec.target_seconds), getattr(recorded, "due", None),
                            self.drill.clock.now(),
                            self._reference() if self.drill.options.show_reference else "",
                            self.drill.spec.seed_trap if self.drill.options.show_reference else "")
            if self.drill.drafts is not None:
                self.drill.drafts.clear(self.drill.spec.id)
        footer = "The buffer is kept: fix it and :submit again."
        if len(result.failing) > 1 and not result.alone:
            footer += " :verbose lists every failing case."
        fragments = render(result, "full", width=self.drill.columns() - 1, info=info, footer=footer,
                           title=False)
        if verdict == Verdict.PASS:
            if not self.drill.options.in_session and self.drill.next_offer is None and self.drill.options.next_drill is not None:
                self.drill.next_offer = self._next_drill()
            if self.drill.options.in_session:
                nxt = "Enter (or ^N): the next item"
            elif self.drill.next_offer is not None:
                nxt = f"Enter: the next drill, {self.drill.next_offer[0]}; :quit (^Q) to leave"
            else:
                nxt = ":quit (^Q) to leave"
            fragments.append(("class:dim", f"  {nxt}\n"))
        self.drill.verdict = fragments
        self.drill.show(fragments)

    def _next_drill(self) -> tuple[str, str] | None:
        try:
            next_drill = self.drill.options.next_drill
            return next_drill() if next_drill is not None else None
        except Exception:  # noqa: BLE001 - a store problem must not take the pass away
            return None

    def _record(self, result: Report | None, source: str, elapsed: float) -> Any:
        """Store one attempt (a graded report, or None for a revealed solution)."""
        if self.drill.record is None:
            return None
        common: dict[str, Any] = dict(drill=self.drill.spec.id, mode=self.drill.options.mode, started_at=self.drill.started_at,
                      seconds=elapsed, code=source, hints=self.drill.hints, session_id=self.drill.options.session_id,
                      target_seconds=float(self.drill.spec.target_seconds), first_try=self.drill.attempts <= 1)
        attempt = revealed_attempt(**common) if result is None else attempt_from(
            result, revealed=self.drill.revealed, **common)
        try:
            return self.drill.record(attempt)
        except Exception as exc:  # noqa: BLE001 - a store problem must not lose the buffer
            self.drill.message = f"could not record the attempt: {exc}"
            return None

    def _reference(self) -> str:
        return contract_source(self.drill.spec.reference_path, [f.name for f in self.drill.spec.functions])

    async def time_up(self) -> None:
        """A mock's 0:00: the buffer is frozen; a grade in flight is waited for, and work no
        submit has graded yet is graded and counted, before the drill ends."""
        drill, jobs = self.drill, self.jobs
        while (drill.left() or 0) > 0:
            await asyncio.sleep(0.2)
        jobs.closing = True
        jobs.pending.clear()
        self.questions.question = None
        while jobs.busy:
            await asyncio.sleep(0.05)
        if not drill.passed() and drill.unsubmitted():
            source = drill.buffer.text
            drill.submitted_text = source
            elapsed = drill.elapsed()
            jobs.busy = "time is up: grading your last buffer…"
            drill.app.invalidate()
            result = await asyncio.get_running_loop().run_in_executor(
                None, lambda: drill.grading.grade(drill.spec.id, source, "<buffer>", drill.options.seed))
            jobs.busy = ""
            self._graded(result, source, elapsed)
        drill.finish("timeout", stop=True)

    @command("last", help="the last verdict again")
    def cmd_last(self, _arg: str = "") -> None:
        if not self.drill.verdict:
            self.drill.show([("class:dim", "Nothing graded yet: :submit (^S) grades the buffer.\n")])
            return
        self.drill.show(self.drill.verdict)

    @command("verbose", help="the last verdict with every case (as drill check --verbose)")
    def cmd_verbose(self, _arg: str = "") -> None:
        result = self.drill.last_result
        if result is None:
            self.drill.show([("class:dim", "Nothing graded yet: :submit (^S) grades the buffer.\n")])
            return
        self.drill.show(render(result, "full", width=self.drill.columns() - 1, verbose=True, title=False))

    @command("try", help="run on the small example inputs and show every intermediate shape", key="c-t",
             lockable=True)
    def cmd_try(self, _arg: str = "") -> None:
        source = self.drill.buffer.text
        self.jobs.spawn("running the example…", lambda: self.drill.grading.trace(self.drill.spec.id, source, "<buffer>"),
                    lambda result: self.drill.show(render_trace(result)))

    @command("hint", help="the next hint (counted)", key="c-g", lockable=True)
    def cmd_hint(self, _arg: str = "") -> None:
        hints = list(self.drill.spec.hints)
        if not hints:
            self.drill.show([("class:dim", "This drill has no hints.\n")])
            return
        if self.drill.hints < len(hints):
            self.drill.hints += 1
        shown: Fragments = []
        for i, text in enumerate(hints[: self.drill.hints], 1):
            shown.append(("class:head", f"hint {i}/{len(hints)}: "))
            shown.append(("", f"{text}\n"))
        if self.drill.hints >= len(hints):
            shown.append(("class:dim", "That was the last hint.\n"))
        self.drill.show(shown)

    @command("shapes", help="the prompt and the shape ledger", key="c-l", aliases=("ledger", "prompt"))
    def cmd_shapes(self, _arg: str = "") -> None:
        self.drill.show(header_fragments(self.drill.spec, self.drill.columns() - 1, title=False))

    @command("reset", help="start again from the skeleton (asks first)")
    def cmd_reset(self, _arg: str = "") -> None:
        def answered(yes: bool) -> None:
            if yes:
                if self.drill.drafts is not None and self.drill.buffer.text.strip() != self.drill.skeleton.strip():
                    self.drill.drafts.save(self.drill.spec.id + ".prev", self.drill.buffer.text)
                self.drill.buffer.set_document(Document(self.drill.skeleton, opening(self.drill.skeleton)))
                self.drill.message = f"reset; the old buffer is in drafts/{self.drill.spec.id}.prev.py"

        self.questions.ask("Replace the buffer with the skeleton?", answered)

    @command("edit", help="open the buffer in $EDITOR; load it back when the editor exits", key="c-o")
    def cmd_edit(self, _arg: str = "") -> None:
        text = self.drill.buffer.text
        self.jobs.busy = "editing…"

        async def job() -> None:
            try:
                result = await run_in_terminal(lambda: self.drill.edit(text, self.drill.spec.id), in_executor=True)
                if result.text is None:
                    self.drill.message = result.problem
                else:
                    new = result.text if result.text.endswith("\n") else result.text + "\n"
                    self.drill.buffer.set_document(Document(new, len(new)))
                    self.drill.message = "loaded from the editor"
            finally:
                self.jobs.done()
            self.drill.app.invalidate()

        self.drill.app.create_background_task(job())

    @command("solution", help="reveal the reference solution (counts as a fail)", lockable=True)
    def cmd_solution(self, _arg: str = "") -> None:
        def answered(yes: bool) -> None:
            if not yes:
                return
            if not self.drill.passed() and not self.drill.revealed:
                self.drill.revealed = True
                self.drill.attempts += 1
                self._record(None, self.drill.buffer.text, self.drill.elapsed())
            out: Fragments = [("class:head bold", "Reference solution"),
                              ("class:dim", " (recorded as a fail; it comes back soon)\n")]
            out += [("class:code", f"    {line}\n") for line in self._reference().splitlines()]
            if self.drill.spec.solution_notes.strip():
                out += [("class:why", f"  {line.strip()}\n") for line in self.drill.spec.solution_notes.strip().splitlines()]
            self.drill.show(out)

        if self.drill.passed() or self.drill.revealed:
            answered(True)
        else:
            self.questions.ask("Reveal the reference? It counts as a fail.", answered)

    @command("skip", help="leave this drill without grading it")
    def cmd_skip(self, _arg: str = "") -> None:
        self.drill.finish("skipped")

    @command("next", help="after a pass: on to the next item (Enter, ^N)")
    def cmd_next(self, _arg: str = "") -> None:
        if self.drill.options.in_session:
            self.drill.finish("next")
        elif self.drill.passed() and self.drill.next_offer is not None:
            self.drill.next_drill = self.drill.next_offer[1]
            self.drill.finish("next")
        else:
            self.drill.message = ":next opens the next drill after a pass; :quit leaves" if self.drill.options.next_drill \
                else ":next is for warm-ups and mocks; :quit leaves"
            self.drill.app.invalidate()

    @command("quit", help="leave (asks when the buffer has unsubmitted changes)", key="c-q", aliases=("q", "exit"))
    def cmd_quit(self, _arg: str = "") -> None:
        if self.drill.options.in_session:
            self.ask_leave_session()
        elif self.drill.unsubmitted():
            self.questions.ask("Leave with unsubmitted changes? They stay as a draft.",
                     lambda yes: self.drill.finish("quit", stop=True) if yes else None)
        else:
            self.drill.finish("quit", stop=True)

    def interrupt(self) -> None:
        """Ctrl-C: never loses the buffer; asks before leaving."""
        if self.drill.options.in_session:
            self.ask_leave_session()
            return
        self.questions.ask("Leave this drill? Your buffer is kept as a draft.",
                 lambda yes: self.drill.finish("quit", stop=True) if yes else None)

    def ask_leave_session(self) -> None:
        """In a warm-up, mock or team session: skip this drill, or end the whole session."""
        kind = {"warmup": "warm-up", "mock": "mock interview", "team": "team session"}.get(self.drill.options.mode,
                                                                                          "session")
        self.questions.choose("Leave this drill?", [
            ("s", "next item" if self.drill.passed() else "skip it", lambda: self.drill.finish("skipped")),
            ("e", f"end the {kind}", lambda: self.drill.finish("quit", stop=True)),
        ])

    @command("help", help="list the commands", aliases=("h",))
    def cmd_help(self, _arg: str = "") -> None:
        out: Fragments = [("class:head bold", "Commands")]
        out.append(("class:dim", " (type on a line of their own and press Enter, or press the key)\n"))
        seen = set()
        for cmd in self.drill.commands.values():
            if cmd.info.name in seen:
                continue
            seen.add(cmd.info.name)
            key = key_label(cmd.info.key) if cmd.info.key else ""
            locked = "  (locked)" if cmd.info.name in self.drill.options.locked else ""
            out.append(("class:code", f"  :{cmd.info.name:<9}"))
            out.append(("class:dim", f"{key:<4}"))
            out.append(("", f"{cmd.info.help}{locked}\n"))
        out.append(("class:dim", "  PageUp/PageDown scroll this pane; Alt-P/Alt-N bring back earlier submissions;\n"))
        out.append(("class:dim", "  Ctrl-C asks before leaving.\n"))
        self.drill.show(out)
