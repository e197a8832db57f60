"""Quick-fire questions: a one-line answer at a prompt, normalised by grader.judge.answers,
then right or wrong with the canonical answer and a one-line why."""
from __future__ import annotations

from dataclasses import dataclass

from prompt_toolkit import PromptSession
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output
from prompt_toolkit.shortcuts import print_formatted_text

from grader.judge.answers import answers_match
from grader.spec import Quiz
from trainer.clock import Clock, SystemClock
from trainer.repl.style import repl_style
from trainer.text.verdict import Fragments


@dataclass(frozen=True)
class QuizResult:
    drill: str
    question: str
    given: str
    answer: str
    why: str
    correct: bool
    seconds: float
    stop: bool = False  # Ctrl-C: end the warm-up

    @property
    def status(self) -> str:
        """right | wrong | unanswered (nothing typed: no score either way)."""
        return "unanswered" if not self.given.strip() else "right" if self.correct else "wrong"


def is_right(given: str, quiz: Quiz) -> bool:
    """Normalised comparison; a multiple-choice question also accepts the choice's number or letter."""
    if answers_match(given, quiz.a):
        return True
    choices = list(getattr(quiz, "choices", ()) or ())
    if quiz.a in choices and given.strip():
        i = choices.index(quiz.a)
        return given.strip().lower().rstrip(").") in (str(i + 1), "abcdefgh"[i])
    return False


def feedback(result: QuizResult) -> Fragments:
    out: Fragments = []
    if result.correct:
        out.append(("class:pass bold", "right"))
        out.append(("class:dim", f"  {result.answer}"))
    else:
        out.append(("class:fail bold", "wrong" if result.given.strip() else "skipped"))
        out.append(("", "  the answer is "))
        out.append(("class:shape", result.answer))
    if result.why:
        out.append(("class:why", f" — {result.why}"))
    out.append(("", "\n"))
    return out


def question_fragments(drill: str, quiz: Quiz, label: str = "") -> Fragments:
    out: Fragments = [("class:title bold", " quick-fire "), ("class:dim", f" {label} {drill}\n".replace("  ", " "))]
    out.append(("class:prompt", f"  {quiz.q}\n"))
    for i, choice in enumerate(getattr(quiz, "choices", ()) or ()):
        out.append(("class:dim", f"    {i + 1}) {choice}\n"))
    return out


def _folded(fragments: Fragments) -> Fragments:
    """Folded at spaces to the terminal's width, so no word is broken across lines."""
    import shutil

    from trainer.repl.wrap import wrap_all

    return wrap_all(fragments, shutil.get_terminal_size().columns - 1)


def ask(drill: str, quiz: Quiz, *, clock: Clock | None = None, label: str = "", input: Input | None = None,
        output: Output | None = None) -> QuizResult:
    """Ask one question at a one-line prompt; show the verdict, the canonical answer and why."""
    clock = clock or SystemClock()
    style = repl_style()
    print_formatted_text(FormattedText(_folded(question_fragments(drill, quiz, label))), style=style, output=output,
                         end="")
    prompt: PromptSession[str] = PromptSession(input=input, output=output)
    started = clock.monotonic()
    stop = False
    try:
        given = prompt.prompt(FormattedText([("class:head", "  > ")]), style=style)
    except KeyboardInterrupt:
        given, stop = "", True
    except EOFError:
        given = ""
    result = QuizResult(drill, quiz.q, given, quiz.a, quiz.why, bool(given.strip()) and is_right(given, quiz),
                        clock.monotonic() - started, stop)
    if not stop:
        indent: Fragments = [("", "  ")]
        print_formatted_text(FormattedText(_folded(indent + feedback(result))), style=style, output=output,
                             end="")
    return result
