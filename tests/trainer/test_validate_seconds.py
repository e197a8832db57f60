"""The hint `drill validate` keeps of each drill's proving time (trainer.validate_seconds), and the
order it starts drills in (grader.authoring.proving.longest_first). A hint only: any odd file is no hint."""
from __future__ import annotations

import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from grader.authoring.proving import longest_first
from trainer import validate_seconds


def test_seconds_saved_are_read_back_and_merged():
    validate_seconds.save({"masked-mean": 0.4, "im2col": 3.8})
    validate_seconds.save({"im2col": 3.5})
    assert validate_seconds.load() == {"masked-mean": 0.4, "im2col": 3.5}
    assert oct(validate_seconds.path().stat().st_mode & 0o777) == "0o600"


@pytest.mark.parametrize("content", [
    b"", b"not json", b"[1, 2]", b'{"a": "slow"}', b'{"a": -1}', b'{"a": NaN}', b'{"a": true}',
    b'{"a": 1e400}', b"\xff\xfe", b"[" * 100000, b'{"a": 1}' + b" " * (1 << 19),
])
def test_an_odd_file_is_no_hint(content: bytes):
    path = validate_seconds.path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    assert validate_seconds.load() == {}
    validate_seconds.save({"gqa": 1.0})  # and it is replaced by a good one
    assert validate_seconds.load() == {"gqa": 1.0}


def test_a_fifo_or_a_folder_is_no_hint_and_never_hangs(tmp_path: Path):
    path = validate_seconds.path()
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    assert validate_seconds.load() == {}
    os.unlink(path)
    path.mkdir()
    assert validate_seconds.load() == {}
    validate_seconds.save({"gqa": 1.0})  # a home it cannot write goes without, silently
    assert path.is_dir()


def test_only_the_good_entries_of_a_file_count():
    path = validate_seconds.path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"gqa": 1.5, "bad": "x", "x" * 300: 2.0, "neg": -3}))
    assert validate_seconds.load() == {"gqa": 1.5}


def _spec(drill: str) -> SimpleNamespace:
    return SimpleNamespace(id=drill, variants=[], scale=None, reference_path=Path("/nonexistent.py"),
                           path=Path(f"/nonexistent/{drill}.yaml"))


def test_the_longest_start_first_and_a_drill_never_timed_before_them():
    specs = [_spec(d) for d in ("a", "b", "c", "new")]
    order = longest_first(specs, {"a": 0.5, "b": 3.0, "c": 1.0})  # type: ignore[arg-type]
    assert [s.id for s in order] == ["new", "b", "c", "a"]
