"""The one byte formatter and the one exception formatter (grader.report), which every
message of the engine, the fake-tensor checks, the tracer and the file reader uses."""
from __future__ import annotations

import pytest

from grader.report import bytes_text, exception_text, exception_where


@pytest.mark.parametrize("n, text", [
    (512, "512 bytes"), (1024, "1.0 KiB"), (256 * 2**20, "256 MiB"), (4 * 10**10, "37.3 GiB"),
    (4 * 2**30, "4.0 GiB"), (3 * 2**40, "3.0 TiB"),
])
def test_bytes_are_written_in_binary_units(n, text):
    assert bytes_text(n) == text


def test_an_exception_is_one_line_with_where_it_was_raised():
    exc = {"type": "IndexError", "message": "index 5 is out of bounds\nmore", "line": 3, "text": "x[5]"}
    assert exception_text(exc) == "IndexError: index 5 is out of bounds (line 3: x[5])"
    assert exception_where(exc) == "line 3 (x[5])"
    assert exception_text({"type": "KeyError"}) == "KeyError" and exception_where({"type": "KeyError"}) == ""
    assert exception_text(exc, at_load=True).startswith("while loading the file: IndexError")
    syntax = {"type": "SyntaxError", "message": "invalid syntax (sol.py, line 2)", "line": 2, "text": "def f(:"}
    assert exception_text(syntax, at_load=True) == "SyntaxError: invalid syntax at line 2: def f(:"


def test_the_engine_scale_and_tracer_share_the_formatters():
    from grader import engine, trace
    from grader.fake import scale
    from grader.spec import userfile

    assert engine.exception_text is exception_text and engine.bytes_text is bytes_text
    assert scale.bytes_text is bytes_text and scale.exception_where is exception_where
    assert trace.exception_text is exception_text and userfile.bytes_text is bytes_text
