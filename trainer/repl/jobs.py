"""Background work in the REPL: grades and traces in a thread, cancelled with Esc or
Ctrl-C, and commands typed ahead while one runs.

A part the REPL (trainer.repl.app.DrillRepl) holds; what it needs from the REPL is
passed in: a redraw, a way to start a background task, the bottom bar's message,
whether a question is open and how to run a queued command. A cancelled job's
answer is thrown away when it comes; `Grading.cancel` stops the worker's side of it.
"""
from __future__ import annotations

import asyncio
from typing import Any, Callable, Coroutine

from trainer.clock import PersonClock
from trainer.repl.grading import Grading

Background = Callable[[Coroutine[Any, Any, None]], object]


class Jobs:
    """The job in flight (at most one), and the commands queued behind it."""

    def __init__(self, grading: Grading, *, redraw: Callable[[], None], background: Background,
                 say: Callable[[str], None], asking: Callable[[], bool], run_command: Callable[[str, str], None],
                 clock: PersonClock | None = None):
        self.grading = grading
        self.clock = clock  # paused while a grade runs: grading time is not the person's time
        self._pausing: object | None = None  # the job that paused it
        self._redraw = redraw
        self._background = background
        self._say = say
        self._asking = asking
        self._run_command = run_command
        self.busy = ""
        self.cancellable = False  # the running job is a grade or a trace: Esc / Ctrl-C cancel it
        self.closing = False  # a mock's time is up: the buffer is read-only while it is graded
        self.pending: list[tuple[str, str]] = []  # commands typed while a job ran
        self._job: object | None = None

    def done(self) -> None:
        """The job ended: the first queued command runs, unless a question is open."""
        self.busy = ""
        if self.pending and not self._asking():
            name, arg = self.pending.pop(0)
            self._say("")
            self._run_command(name, arg)

    def background(self, coroutine: Coroutine[Any, Any, None]) -> None:
        """Work that neither holds the bar nor queues commands (the smallest-case search after a verdict)."""
        self._background(coroutine)

    def spawn(self, label: str, work: Callable[[], Any], done: Callable[[Any], None], *, grading: bool = False) -> None:
        """Run `work` (a grade or a trace) in a thread; `done` gets its result unless the
        person cancelled it first (Esc or Ctrl-C). `grading`: the person's clock stops until
        the verdict is shown (or the grade is cancelled)."""
        self.busy = label
        self.cancellable = True
        self._say("")
        token = self._job = object()
        if grading:
            self.pause_for(token)
        self._redraw()

        async def job() -> None:
            try:
                result = await asyncio.get_running_loop().run_in_executor(None, work)
            except BaseException:
                self.resume_for(token)
                raise
            if self._job is not token:
                return  # cancelled: the drill moved on without it (and the clock went on then)
            self._job = None
            self.cancellable = False
            try:
                done(result)
            finally:
                self.resume_for(token)
                self.done()
            self._redraw()

        self._background(job())

    def pause_for(self, token: object) -> None:
        """The grader works for `token`: the person's clock stops (once per job)."""
        if self.clock is not None and self._pausing is None:
            self._pausing = token
            self.clock.pause()

    def resume_for(self, token: object) -> None:
        """`token`'s grade is over (shown, failed or cancelled): the person's clock goes on."""
        if self.clock is not None and token is not None and self._pausing is token:
            self._pausing = None
            self.clock.resume()

    def cancel_job(self) -> bool:
        """Esc / Ctrl-C while a grade or a trace runs: stop it; nothing is recorded, the
        drill stays open. False when there is nothing to cancel."""
        if not (self.busy and self.cancellable) or self.closing:
            return False
        what = "grade" if self.busy.startswith("grading") else "run"
        self.resume_for(self._job)
        self._job = None
        self.cancellable = False
        self.busy = ""
        self.pending.clear()
        cancel = getattr(self.grading, "cancel", None)  # a test's fake grading may have none
        if cancel is not None:
            cancel()
        self._say(f"{what} cancelled; nothing recorded")
        self._redraw()
        return True
