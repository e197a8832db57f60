"""The `:`-commands of the REPL, each registered by the @command decorator.

A mixin: the handlers act on the state the REPL (trainer.repl.app.DrillRepl)
holds — the buffer, the output pane, the question at the bottom bar — and
start their slow work (grading, tracing, the editor) as background jobs.
"""
from __future__ import annotations

from typing import Any

from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.document import Document

from trainer.repl.code import opening
from trainer.repl.commands import command, key_label
from trainer.repl.header import header_fragments
from trainer.repl.reference import contract_source
from trainer.repl.trace_view import render_trace
from grader.report import Report, Verdict
from trainer.attempts import attempt_from, revealed_attempt
from trainer.verdict import Fragments, PassInfo, render


class DrillCommands:
    """The handlers; `self` is a DrillRepl."""

    spec: Any
    grading: Any
    options: Any

    @command("submit", help="grade the buffer on every case", key="c-s")
    def cmd_submit(self, _arg: str = "") -> None:
        source = self.buffer.text
        self.buffer.append_to_history()
        self.submitted_text = source
        elapsed = self.elapsed()
        seed = self.options.seed
        self._spawn("grading…", lambda: self.grading.grade(self.spec.id, source, "<buffer>", seed),
                    lambda result: self._graded(result, source, elapsed))

    def _graded(self, result: Report, source: str, elapsed: float) -> None:
        self.attempts += 1
        self.last_result = result
        self.graded_code = source
        self.results.append(result)
        verdict = Verdict.of(result.verdict)
        if result.trap:
            self.traps.append(result.trap.id)
        if verdict == Verdict.PASS and not self.passed():
            self.passed_at = self.started + elapsed
        recorded = self._record(result, source, elapsed)
        info = None
        if verdict == Verdict.PASS:
            info = PassInfo(elapsed, float(self.spec.target_seconds), getattr(recorded, "due", None),
                            self.clock.now(),
                            self._reference() if self.options.show_reference else "",
                            self.spec.seed_trap if self.options.show_reference else "")
            if self.drafts is not None:
                self.drafts.clear(self.spec.id)
        footer = "The buffer is kept: fix it and :submit again."
        fragments = render(result, "full", width=self._width() - 1, info=info, footer=footer,
                           title=False)
        if verdict == Verdict.PASS:
            if not self.options.in_session and self.next_offer is None and self.options.next_drill is not None:
                self.next_offer = self._next_drill()
            if self.options.in_session:
                nxt = "Enter (or ^N): the next item"
            elif self.next_offer is not None:
                nxt = f"Enter: the next drill, {self.next_offer[0]}; :quit (^Q) to leave"
            else:
                nxt = ":quit (^Q) to leave"
            fragments.append(("class:dim", f"  {nxt}\n"))
        self.show(fragments)

    def _next_drill(self) -> tuple[str, str] | None:
        try:
            return self.options.next_drill()
        except Exception:  # noqa: BLE001 - a store problem must not take the pass away
            return None

    def _record(self, result: Report | None, source: str, elapsed: float) -> Any:
        """Store one attempt (a graded report, or None for a revealed solution)."""
        if self.record is None:
            return None
        common = dict(drill=self.spec.id, mode=self.options.mode, started_at=self.started_at,
                      seconds=elapsed, code=source, hints=self.hints, session_id=self.options.session_id,
                      target_seconds=float(self.spec.target_seconds), first_try=self.attempts <= 1)
        attempt = revealed_attempt(**common) if result is None else attempt_from(
            result, revealed=self.revealed, **common)
        try:
            return self.record(attempt)
        except Exception as exc:  # noqa: BLE001 - a store problem must not lose the buffer
            self.message = f"could not record the attempt: {exc}"
            return None

    def _reference(self) -> str:
        return contract_source(self.spec.reference_path, [f.name for f in self.spec.functions])

    @command("try", help="run on the small example inputs and show every intermediate shape", key="c-t",
             lockable=True)
    def cmd_try(self, _arg: str = "") -> None:
        source = self.buffer.text
        self._spawn("running the example…", lambda: self.grading.trace(self.spec.id, source, "<buffer>"),
                    lambda result: self.show(render_trace(result)))

    @command("hint", help="the next hint (counted)", key="c-g", lockable=True)
    def cmd_hint(self, _arg: str = "") -> None:
        hints = list(self.spec.hints)
        if not hints:
            self.show([("class:dim", "This drill has no hints.\n")])
            return
        if self.hints < len(hints):
            self.hints += 1
        shown: Fragments = []
        for i, text in enumerate(hints[: self.hints], 1):
            shown.append(("class:head", f"hint {i}/{len(hints)}: "))
            shown.append(("", f"{text}\n"))
        if self.hints >= len(hints):
            shown.append(("class:dim", "That was the last hint.\n"))
        self.show(shown)

    @command("shapes", help="the prompt and the shape ledger", key="c-l", aliases=("ledger", "prompt"))
    def cmd_shapes(self, _arg: str = "") -> None:
        self.show(header_fragments(self.spec, self._width() - 1, title=False))

    @command("reset", help="start again from the skeleton (asks first)")
    def cmd_reset(self, _arg: str = "") -> None:
        def answered(yes: bool) -> None:
            if yes:
                if self.drafts is not None and self.buffer.text.strip() != self.skeleton.strip():
                    self.drafts.save(self.spec.id + ".prev", self.buffer.text)
                self.buffer.set_document(Document(self.skeleton, opening(self.skeleton)))
                self.message = f"reset; the old buffer is in drafts/{self.spec.id}.prev.py"

        self.ask("Replace the buffer with the skeleton?", answered)

    @command("edit", help="open the buffer in $EDITOR; load it back when the editor exits", key="c-o")
    def cmd_edit(self, _arg: str = "") -> None:
        text = self.buffer.text
        self.busy = "editing…"

        async def job() -> None:
            try:
                result = await run_in_terminal(lambda: self.edit(text, self.spec.id), in_executor=True)
                if result.text is None:
                    self.message = result.problem
                else:
                    new = result.text if result.text.endswith("\n") else result.text + "\n"
                    self.buffer.set_document(Document(new, len(new)))
                    self.message = "loaded from the editor"
            finally:
                self._job_done()
            self.app.invalidate()

        self.app.create_background_task(job())

    @command("solution", help="reveal the reference solution (counts as a fail)", lockable=True)
    def cmd_solution(self, _arg: str = "") -> None:
        def answered(yes: bool) -> None:
            if not yes:
                return
            if not self.passed() and not self.revealed:
                self.revealed = True
                self.attempts += 1
                self._record(None, self.buffer.text, self.elapsed())
            out: Fragments = [("class:head bold", "Reference solution"),
                              ("class:dim", " (recorded as a fail; it comes back soon)\n")]
            out += [("class:code", f"    {line}\n") for line in self._reference().splitlines()]
            if self.spec.solution_notes.strip():
                out += [("class:why", f"  {line.strip()}\n") for line in self.spec.solution_notes.strip().splitlines()]
            self.show(out)

        if self.passed() or self.revealed:
            answered(True)
        else:
            self.ask("Reveal the reference? It counts as a fail.", answered)

    @command("skip", help="leave this drill without grading it")
    def cmd_skip(self, _arg: str = "") -> None:
        self.finish("skipped")

    @command("next", help="after a pass: on to the next item (Enter, ^N)")
    def cmd_next(self, _arg: str = "") -> None:
        if self.options.in_session:
            self.finish("next")
        elif self.passed() and self.next_offer is not None:
            self.next_drill = self.next_offer[1]
            self.finish("next")
        else:
            self.message = ":next opens the next drill after a pass; :quit leaves" if self.options.next_drill \
                else ":next is for warm-ups and mocks; :quit leaves"
            self.app.invalidate()

    @command("quit", help="leave (asks when the buffer has unsubmitted changes)", key="c-q", aliases=("q", "exit"))
    def cmd_quit(self, _arg: str = "") -> None:
        if self.options.in_session:
            self.ask_leave_session()
        elif self.unsubmitted():
            self.ask("Leave with unsubmitted changes? They stay as a draft.",
                     lambda yes: self.finish("quit", stop=True) if yes else None)
        else:
            self.finish("quit", stop=True)

    def interrupt(self) -> None:
        """Ctrl-C: never loses the buffer; asks before leaving."""
        if self.options.in_session:
            self.ask_leave_session()
            return
        self.ask("Leave this drill? Your buffer is kept as a draft.",
                 lambda yes: self.finish("quit", stop=True) if yes else None)

    def ask_leave_session(self) -> None:
        """In a warm-up, mock or team session: skip this drill, or end the whole session."""
        kind = {"warmup": "warm-up", "mock": "mock interview", "team": "team session"}.get(self.options.mode,
                                                                                          "session")
        self.choose("Leave this drill?", [
            ("s", "next item" if self.passed() else "skip it", lambda: self.finish("skipped")),
            ("e", f"end the {kind}", lambda: self.finish("quit", stop=True)),
        ])

    @command("help", help="list the commands", aliases=("h",))
    def cmd_help(self, _arg: str = "") -> None:
        out: Fragments = [("class:head bold", "Commands")]
        out.append(("class:dim", " (type on a line of their own and press Enter, or press the key)\n"))
        seen = set()
        for cmd in self.commands.values():
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
        self.show(out)
