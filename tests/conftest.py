"""Shared fixtures: one grader per test session (torch is slow to import), and a
private DRILL_HOME for every test; and the rule that marks the tests that grade
as `slow`, so day-to-day work can run `python -m pytest -m "not slow"`."""
from __future__ import annotations

import os
from pathlib import Path

import pytest


# Fixtures that start a real grader: every test that uses one, directly or
# through another fixture, grades drills in the sandbox and is marked slow.
# A rule, not a list of tests: it follows the fixtures wherever the files move.
# (Tests that grade or drive a terminal without these fixtures carry the mark
# themselves, on the test or as the file's `pytestmark`.)
GRADING_FIXTURES = frozenset({"grader", "toy_grader"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if GRADING_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _drill_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "drill-home"
    monkeypatch.setenv("DRILL_HOME", str(home))
    monkeypatch.delenv("DRILL_PATH", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    return home


@pytest.fixture(scope="session")
def grader():
    """The one in-process grader shared by every test that grades."""
    from grader.engine import Grader

    return Grader()


@pytest.fixture(scope="session")
def catalogue(grader):
    return grader.catalogue


def reference_source(spec) -> str:
    return Path(spec.reference_path).read_text(encoding="utf-8")


def trap_source(spec, trap) -> str:
    """The reference module with one function replaced by the trap: a wrong solution file."""
    return reference_source(spec) + f"\n\n{trap.replaces} = {trap.function}\n"


os.environ.setdefault("DRILL_TEST", "1")
