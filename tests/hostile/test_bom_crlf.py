"""Family "BOM and CRLF": a solution or a DRILL_PATH reference saved with a UTF-8
byte-order mark and Windows line ends is read the way Python reads it."""
from __future__ import annotations

from tests.paths import TESTS

import json
import shutil
from pathlib import Path

import pytest

TOY = TESTS / "fixtures" / "drills"
BOM = b"\xef\xbb\xbf"


def _windows(text: str) -> bytes:
    return BOM + text.replace("\n", "\r\n").encode()


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    """The toy drill, its reference saved with a BOM and CRLF."""
    folder = tmp_path / "pack"
    folder.mkdir()
    shutil.copy(TOY / "sandbox-toy.yaml", folder / "sandbox-toy.yaml")
    (folder / "sandbox-toy.py").write_bytes(_windows((TOY / "sandbox-toy.py").read_text()))
    return folder


def test_a_reference_with_a_bom_and_crlf_parses_and_imports(pack: Path):
    from grader.cases.prepare import load_reference
    from grader.catalogue import load_catalogue

    catalogue = load_catalogue([pack])
    assert not catalogue.warnings() and not catalogue.errors, (catalogue.warnings(), catalogue.errors)
    reference = load_reference(catalogue.get("sandbox-toy"))
    assert reference.add_one(1) == 2


@pytest.mark.slow  # grades through the sandbox
def test_a_solution_with_a_bom_and_crlf_passes(pack: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from typer.testing import CliRunner

    from trainer.cli import _register, app

    solution = tmp_path / "solution.py"
    solution.write_bytes(_windows("def add_one(x):\n    y = x + 1\n    return y\n"))
    monkeypatch.setenv("DRILL_PATH", str(pack))
    _register()
    result = CliRunner().invoke(app, ["check", "sandbox-toy", str(solution), "--json", "--seed", "7"])
    data = json.loads(result.stdout)
    assert data["verdict"] == "pass", data
    assert result.exit_code == 0
