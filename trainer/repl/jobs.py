"""Background work in the REPL: grades and traces in a thread, cancelled with Esc or
Ctrl-C, commands typed ahead while one runs, and a mock's 0:00.

A mixin for the REPL (trainer.repl.app.DrillRepl). A cancelled job's answer is
thrown away when it comes; `Grading.cancel` stops the worker's side of it.
"""
from __future__ import annotations

import asyncio
from typing import Any, Callable


class Jobs:
    """`self` is a DrillRepl."""

    app: Any
    grading: Any
    busy: str
    cancellable: bool
    closing: bool
    message: str
    pending: list[tuple[str, str]]
    _job: object | None

    def _job_done(self) -> None:
        self.busy = ""
        if self.pending and self.question is None:
            name, arg = self.pending.pop(0)
            self.message = ""
            self.run_command(name, arg)

    def _spawn(self, label: str, work: Callable[[], Any], done: Callable[[Any], None]) -> None:
        """Run `work` (a grade or a trace) in a thread; `done` gets its result unless the
        person cancelled it first (Esc or Ctrl-C)."""
        self.busy = label
        self.cancellable = True
        self.message = ""
        token = self._job = object()
        self.app.invalidate()

        async def job() -> None:
            result = await asyncio.get_running_loop().run_in_executor(None, work)
            if self._job is not token:
                return  # cancelled: the drill moved on without it
            self._job = None
            self.cancellable = False
            try:
                done(result)
            finally:
                self._job_done()
            self.app.invalidate()

        self.app.create_background_task(job())

    def cancel_job(self) -> bool:
        """Esc / Ctrl-C while a grade or a trace runs: stop it; nothing is recorded, the
        drill stays open. False when there is nothing to cancel."""
        if not (self.busy and self.cancellable) or self.closing:
            return False
        what = "grade" if self.busy.startswith("grading") else "run"
        self._job = None
        self.cancellable = False
        self.busy = ""
        self.pending.clear()
        cancel = getattr(self.grading, "cancel", None)
        if cancel is not None:
            cancel()
        self.message = f"{what} cancelled; nothing recorded"
        self.app.invalidate()
        return True

    async def _watch_deadline(self) -> None:
        """At 0:00 the buffer is frozen; a grade in flight is waited for, and work no submit
        has graded yet is graded and counted, before the drill ends."""
        while (self.left() or 0) > 0:
            await asyncio.sleep(0.2)
        self.closing = True
        self.pending.clear()
        self.question = None
        while self.busy:
            await asyncio.sleep(0.05)
        if not self.passed() and self.unsubmitted():
            source = self.buffer.text
            self.submitted_text = source
            elapsed = self.elapsed()
            self.busy = "time is up: grading your last buffer…"
            self.app.invalidate()
            result = await asyncio.get_running_loop().run_in_executor(
                None, lambda: self.grading.grade(self.spec.id, source, "<buffer>", self.options.seed))
            self.busy = ""
            self._graded(result, source, elapsed)
        self.finish("timeout", stop=True)
