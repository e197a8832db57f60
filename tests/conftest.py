"""Shared fixtures: one grader per test session (torch is slow to import), and a
private DRILL_HOME for every test."""
from __future__ import annotations

import os
from pathlib import Path

import pytest


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


os.environ.setdefault("DRILL_TEST", "1")
