"""Family "honest odd code": a solution's exception is described whatever its __str__
or its class name does, without killing the run or passing for channel forgery."""
from __future__ import annotations

from tests.paths import TESTS

from pathlib import Path

import pytest

from grader.sandbox import describe_exception

TOY = TESTS / "fixtures" / "drills"


class _Unreadable(Exception):
    def __str__(self):
        raise RuntimeError("no message")


def test_an_exception_whose_str_raises_is_described():
    exc = describe_exception(_Unreadable(), "f.py")
    assert exc["type"] == "_Unreadable"
    assert exc["message"] == "(its message could not be read: RuntimeError: no message)"


def test_a_250_character_class_name_is_shortened_and_stays_valid():
    from grader.sandbox import channel

    cls = type("E" * 250, (Exception,), {})
    exc = describe_exception(cls("boom"), "f.py")
    assert len(exc["type"]) <= 100 and exc["type"].startswith("EEE") and exc["message"] == "boom"
    channel.check_exc(exc)  # what the child sends is what the parent's channel accepts


@pytest.fixture(scope="module")
def toy():
    from grader.catalogue import load_catalogue
    from grader.engine import Grader

    return Grader(load_catalogue([TOY]))


def _grade(toy, source: str, path: str):
    return {c.name: c for c in toy.grade("sandbox-toy", source, path, seed=7).cases}


@pytest.mark.slow  # grades through the sandbox
def test_a_str_that_raises_costs_only_the_case_that_raised(toy):
    path = TESTS / "hostile" / "odd_str_raises.py"
    cases = _grade(toy, path.read_text(), str(path))
    assert cases["small"].verdict == "pass" and cases["large"].verdict == "pass"
    assert cases["small-fp16"].verdict == "error"
    assert "MyError: (its message could not be read: AttributeError" in cases["small-fp16"].message
    assert "os._exit" not in cases["small-fp16"].message


@pytest.mark.slow  # grades through the sandbox
def test_a_250_character_exception_name_is_not_channel_forgery(toy, tmp_path: Path):
    name = "E" * 250
    source = (f"import torch\n\n\nclass {name}(Exception):\n    pass\n\n\ndef add_one(x):\n"
              f"    if x.dtype == torch.float16:\n        raise {name}('fp16 is not handled')\n    return x + 1\n")
    path = tmp_path / "long_name.py"
    path.write_text(source)
    cases = _grade(toy, source, str(path))
    assert cases["small"].verdict == "pass" and cases["large"].verdict == "pass"
    assert cases["small-fp16"].verdict == "error" and "fp16 is not handled" in cases["small-fp16"].message
    assert not any("result channel" in c.message for c in cases.values())
