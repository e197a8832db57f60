"""A question in the bottom bar: y/n, or one key per choice (skip / end the warm-up, mock or team run).

A part the REPL (trainer.repl.app.DrillRepl) holds: while a question is open the
key bindings hand every key to `press`, and Esc or Ctrl-C to `cancel_question`.
All it needs from the REPL is a way to redraw the screen.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


@dataclass
class Question:
    """A question in the bottom bar: one key per choice; Esc and Ctrl-C cancel."""

    text: str
    choices: list[tuple[str, str, Callable[[], Any]]]  # (key, what it does, action)
    cancel: Callable[[], Any] = lambda: None

    @property
    def yes_no(self) -> bool:
        return [k for k, _, _ in self.choices] == ["y", "n"]


class Questions:
    """The open question (at most one) and its answers."""

    def __init__(self, redraw: Callable[[], None]):
        self.question: Question | None = None
        self._redraw = redraw

    def ask(self, text: str, on_answer: Callable[[bool], Any]) -> None:
        """A yes/no question; Esc and Ctrl-C answer no."""
        self.question = Question(text, [("y", "yes", lambda: on_answer(True)), ("n", "no", lambda: on_answer(False))],
                                 lambda: on_answer(False))
        self._redraw()

    def choose(self, text: str, choices: list[tuple[str, str, Callable[[], Any]]]) -> None:
        """A question with one key per choice; Esc and Ctrl-C leave things as they are."""
        self.question = Question(text, choices)
        self._redraw()

    def answer(self, yes: bool) -> None:
        self.press("y" if yes else "n")

    def press(self, key: str) -> None:
        """A key pressed while a question is open: its choice, or nothing."""
        q = self.question
        if q is None:
            return
        for k, _, action in q.choices:
            if k == key.lower():
                self.question = None
                action()
                break
        self._redraw()

    def cancel_question(self) -> None:
        q, self.question = self.question, None
        if q is not None:
            q.cancel()
        self._redraw()
