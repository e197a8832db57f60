"""The timed queue (trainer.practice.timed_queue) and the one loop that runs it from the CLI
(trainer.cli.timed.run_queue), with a fake clock and stand-ins for the REPL."""
from __future__ import annotations

import pytest

from trainer.cli.timed import Done, run_queue
from trainer.clock import FakeClock
from trainer.practice.flows import DrillItem, QuizItem
from trainer.practice.timed_queue import TimedQueue


class Grading:
    closed = False

    def close(self) -> None:
        self.closed = True


def test_items_come_in_order_and_the_rest_is_not_reached():
    queue: TimedQueue[str, str] = TimedQueue(["a", "b", "c"], FakeClock())
    assert queue.deadline is None and queue.left() is None and not queue.time_up()
    assert queue.next() == "a" and queue.position() == (1, 3)
    queue.add("a done")
    assert queue.next() == "b"
    queue.add("b left", stop=True)
    assert queue.over() and queue.next() is None
    assert queue.results == ["a done", "b left"] and queue.not_reached() == ["c"]


def test_the_limit_stops_new_items_but_never_the_one_started():
    clock = FakeClock()
    queue: TimedQueue[str, str] = TimedQueue(["a", "b"], clock, minutes=1)
    assert queue.deadline == queue.started + 60 and queue.left() == 60
    assert queue.next() == "a"
    clock.advance(90)  # the item already started runs past the limit
    queue.add("a late")
    assert queue.time_up() and queue.left() == 0 and queue.elapsed() == 90
    assert queue.next() is None and queue.not_reached() == ["b"]


def test_run_queue_opens_drills_and_questions_and_calls_after_once_each_is_kept():
    queue: TimedQueue = TimedQueue([QuizItem("a", 0), DrillItem("a", "new"), DrillItem("b", "new")], FakeClock())
    seen = []

    def after(item, done):
        seen.append((item, done.result, len(queue.results)))

    grading = Grading()
    results = run_queue(queue, grading, lambda item: Done(f"drill {item.drill}"),
                        quiz=lambda item: Done(f"quiz {item.drill}"), after=after)
    assert results == ["quiz a", "drill a", "drill b"] and grading.closed
    assert [n for _, _, n in seen] == [1, 2, 3]


def test_run_queue_stops_when_the_person_leaves():
    queue: TimedQueue[str, str] = TimedQueue(["a", "b", "c"], FakeClock())
    grading = Grading()
    assert run_queue(queue, grading, lambda item: Done(item, stop=item == "b")) == ["a", "b"]
    assert queue.not_reached() == ["c"] and grading.closed


def test_run_queue_stops_at_the_limit():
    clock = FakeClock()
    queue: TimedQueue[str, str] = TimedQueue(["a", "b"], clock, minutes=1)

    def drill(item: str) -> Done[str]:
        clock.advance(61)
        return Done(item)

    assert run_queue(queue, Grading(), drill) == ["a"] and queue.not_reached() == ["b"]


def test_run_queue_closes_the_grader_when_an_item_fails():
    queue: TimedQueue[str, str] = TimedQueue(["a"], FakeClock())
    grading = Grading()

    def drill(item: str) -> Done[str]:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        run_queue(queue, grading, drill)
    assert grading.closed
