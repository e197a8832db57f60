"""Shared fixtures: one grader per test session (torch is slow to import), and a
private DRILL_HOME for every test; and the rule that marks the tests that grade
as `slow`, so day-to-day work can run `python -m pytest -n 2 -m "not slow"`."""
from __future__ import annotations

import os
from pathlib import Path

import pytest


# Fixtures that grade with the real grader: every test that uses one, directly
# or through another fixture, grades drills in the sandbox and is marked slow.
# `catalogue` only reads the drills the grader holds (building a Grader starts
# nothing), so a test that uses it alone stays fast. A rule, not a list of
# tests: it follows the fixtures wherever the test files move. (Tests that
# grade, attack the sandbox or drive a terminal without these fixtures carry
# the mark themselves, on the test or as the file's `pytestmark`.)
GRADING_FIXTURES = frozenset({"grader", "toy_grader"})
READ_ONLY_FIXTURES = frozenset({"catalogue"})


def _grades(item: pytest.Item) -> bool:
    """Whether a grading fixture is reached from the test's fixtures, not through a read-only one."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:  # not a test function (a doctest, say): judge by every fixture it uses
        return bool(GRADING_FIXTURES.intersection(getattr(item, "fixturenames", ())))
    todo, seen = list(info.initialnames), set()
    while todo:
        name = todo.pop()
        if name in seen or name in READ_ONLY_FIXTURES:
            continue
        seen.add(name)
        if name in GRADING_FIXTURES:
            return True
        for fixturedef in info.name2fixturedefs.get(name, ()):
            todo.extend(fixturedef.argnames)
    return False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _grades(item):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def _warm_catalogue(tmp_path_factory: pytest.TempPathFactory) -> bytes | None:
    """The catalogue cache (trainer.catalogue_cache) a person has after their first
    `drill` command, built once by the real code for the built-in drills: parsing all
    32 specs afresh in every test's new home was most of the fast run's time."""
    from trainer.catalogue_cache import cache_path, load_catalogue

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DRILL_HOME", str(tmp_path_factory.mktemp("warm-home")))
        mp.delenv("DRILL_PATH", raising=False)
        load_catalogue()
        path = cache_path()
        return path.read_bytes() if path.is_file() else None


@pytest.fixture(autouse=True)
def _drill_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _warm_catalogue: bytes | None,
                request: pytest.FixtureRequest) -> Path:
    """A private DRILL_HOME for every test, holding the warm catalogue cache unless the
    test is marked `cold_catalogue` (it checks what happens without one). The cache
    is keyed by every spec file's stamp, so a test that edits a spec or sets
    DRILL_PATH still parses again."""
    home = tmp_path / "drill-home"
    monkeypatch.setenv("DRILL_HOME", str(home))
    monkeypatch.delenv("DRILL_PATH", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    if _warm_catalogue is not None and request.node.get_closest_marker("cold_catalogue") is None:
        from trainer.catalogue_cache import cache_path

        cache = cache_path()
        cache.parent.mkdir(parents=True, mode=0o700)
        fd = os.open(cache, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(_warm_catalogue)
    return home


@pytest.fixture(scope="session")
def grader():
    """The one in-process grader shared by every test that grades, on the built-in drills."""
    from grader.engine import Grader
    from tests.builtin import builtin_catalogue

    return Grader(builtin_catalogue())


@pytest.fixture(scope="session")
def catalogue(grader):
    return grader.catalogue


def reference_source(spec) -> str:
    return Path(spec.reference_path).read_text(encoding="utf-8")


os.environ.setdefault("DRILL_TEST", "1")
