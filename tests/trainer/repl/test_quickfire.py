"""Quick-fire questions at a one-line prompt: normalised answers, canonical answer and why."""
from __future__ import annotations

from dataclasses import dataclass

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from trainer.clock import FakeClock
from trainer.repl.quickfire import ask, feedback, is_right
from trainer.text.verdict import plain


@dataclass(frozen=True)
class Q:
    q: str
    a: str
    why: str = ""
    choices: tuple[str, ...] = ()


@pytest.mark.parametrize("given", ["(B,H,T,S)", "( B, H, T, S )", "B H T S", "[B, H, T, S]", "b,h,t,s"])
def test_shape_spellings_match(given):
    assert is_right(given, Q("scores?", "(B, H, T, S)"))


@pytest.mark.parametrize("given", ["(B, T, H, S)", "(B, H, T)", "B H S T", ""])
def test_wrong_shapes_do_not(given):
    assert not is_right(given, Q("scores?", "(B, H, T, S)"))


@pytest.mark.parametrize("given", ["40 GB", "40GB", "4e10 bytes", "40,000,000,000 bytes", "40000 MB"])
def test_numbers_match_with_units(given):
    assert is_right(given, Q("memory?", "40 GB"))


def test_numbers_with_other_units_do_not():
    assert not is_right("40 GiB", Q("memory?", "40 GB"))
    assert not is_right("4 GB", Q("memory?", "40 GB"))


def test_words_and_choices():
    assert is_right(" Error! ", Q("what happens?", "error"))
    quiz = Q("which?", "tril", choices=("triu", "tril"))
    assert is_right("2", quiz) and is_right("b", quiz) and is_right("tril", quiz)
    assert not is_right("1", quiz)


def run_prompt(quiz: Q, typed: str, clock: FakeClock | None = None):
    with create_pipe_input() as pipe:
        pipe.send_text(typed)
        return ask("mha-padding", quiz, clock=clock or FakeClock(), input=pipe, output=DummyOutput())


def test_prompt_right_answer():
    result = run_prompt(Q("Q is (B, T, d) with H heads. Scores?", "(B, H, T, S)", "one score per head"),
                        "b h t s\r")
    assert result.correct and result.given == "b h t s" and not result.stop


def test_prompt_wrong_answer_shows_the_canonical_one_and_why():
    result = run_prompt(Q("scale?", "64", "dh = d / H = 64"), "8\r")
    assert not result.correct
    text = plain(feedback(result))
    assert text == "wrong  the answer is 64 — dh = d / H = 64\n"


def test_prompt_ctrl_c_stops_the_session():
    result = run_prompt(Q("scale?", "64"), "\x03")
    assert result.stop and not result.correct
