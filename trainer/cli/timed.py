"""The one loop that runs a timed flow from the CLI: warm-up, mock and team run.

A flow's TimedQueue (trainer.practice.timed_queue) says which item comes next and
when the time is up; this loop takes each item in turn, opens it (the drill
REPL, or a quick-fire question), hands the result back to the queue, stops when
the person leaves or the limit is reached (an item already started is always
finished), closes the grader, and returns the results. Inside the REPL, Ctrl-C
asks leave / skip / stay as it always has (trainer.repl); leaving sets `stop`.
What differs between the flows (the labels, what is printed and saved after
each item) comes in as the `drill`, `quiz` and `after` callables.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Generic, Protocol, TypeVar

from trainer.clock import Clock
from trainer.paths import drill_home
from trainer.repl.app import DrillOutcome, DrillRepl, ReplOptions
from trainer.practice.flows import QuizItem
from trainer.practice.sittings import SittingRecorder
from trainer.practice.timed_queue import TimedQueue

if TYPE_CHECKING:
    from grader.spec import Spec
    from trainer.repl.grading import Grading

T = TypeVar("T")
R = TypeVar("R")


class Closeable(Protocol):
    def close(self) -> None: ...


@dataclass(frozen=True)
class Done(Generic[R]):
    """What one item came to: the result the queue keeps, and whether the person ended
    the whole flow."""

    result: R
    stop: bool = False


def open_drill(spec: Spec, grading: Grading, options: ReplOptions, clock: Clock | None = None,
               sitting: SittingRecorder | None = None) -> DrillOutcome:
    """One drill in the REPL as one sitting (trainer.practice.sittings): every submit recorded, the
    sitting closed with the drill's outcome. With `sitting` given, the submits go into it and the
    caller closes it (a mock's follow-up shares its drill's sitting: one review for both)."""
    own = sitting is None
    sitting = sitting or SittingRecorder()
    outcome = DrillRepl(spec, grading, record=sitting, home=drill_home(), clock=clock, options=options).run()
    if own:
        sitting.close(outcome.status, revealed=outcome.revealed, hints=outcome.hints)
    return outcome


def run_queue(queue: TimedQueue[T, R], grading: Closeable, drill: Callable[[T], Done[R]],
              quiz: Callable[[QuizItem], Done[R]] | None = None,
              after: Callable[[T, Done[R]], None] | None = None,
              last: Callable[[list[R]], list[R]] | None = None) -> list[R]:
    """Run `queue` to its end: `drill(item)` opens a drill, `quiz(item)` a quick-fire
    question; `after(item, done)` prints or saves once the queue holds the result; `last(results)`
    may still use the grader once the queue has ended (off the clock) and gives the results
    kept. The grader is closed however the loop ends."""
    try:
        while (item := queue.next()) is not None:
            done = quiz(item) if quiz is not None and isinstance(item, QuizItem) else drill(item)
            queue.add(done.result, stop=done.stop)
            if after is not None:
                after(item, done)
        if last is not None:
            queue.results[:] = last(list(queue.results))
    finally:
        grading.close()
    return queue.results
