"""`drill new ID --topic T` scaffolds a drill in the first DRILL_PATH folder (a spec, a
reference with one trap stub, solutions/<id>/ with an ok_ and a bad_slip_ file);
`drill validate` on it lists what is left to fill in, and is green once the stub is
written the way its marker says. Refusals are usage errors (exit 2) that write nothing."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from grader.authoring.scaffold import MARKER
from trainer.cli import _register, app

_register()


@pytest.fixture
def runner():
    return CliRunner()


@pytest.fixture
def drill_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "content-drills"
    root.mkdir()
    monkeypatch.setenv("DRILL_PATH", str(root))
    return root


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_new_writes_the_four_files_in_the_first_drill_path_folder(runner, drill_path, tmp_path, monkeypatch):
    second = tmp_path / "second"
    second.mkdir()
    monkeypatch.setenv("DRILL_PATH", f"{drill_path}:{second}")
    result = runner.invoke(app, ["new", "my-drill", "--topic", "broadcasting"])
    assert result.exit_code == 0, result.output
    assert _files(drill_path) == ["broadcasting/my-drill.py", "broadcasting/my-drill.yaml",
                                  "broadcasting/solutions/my-drill/bad_slip_column_mean.py",
                                  "broadcasting/solutions/my-drill/ok_rowwise_sum.py"]
    assert _files(second) == []
    assert f"next: drill validate {drill_path / 'broadcasting' / 'my-drill.yaml'}" in result.output
    assert (drill_path / "broadcasting/solutions/my-drill/bad_slip_column_mean.py").read_text().startswith("# trap: none")
    listed = runner.invoke(app, ["list"])
    assert listed.exit_code == 0 and "my-drill" in listed.output and "skipped" not in listed.output


def test_new_uses_an_existing_numbered_topic_folder(runner, drill_path):
    (drill_path / "02-attention").mkdir()
    assert runner.invoke(app, ["new", "my-attn", "-t", "attention"]).exit_code == 0
    assert (drill_path / "02-attention" / "my-attn.yaml").is_file()


@pytest.mark.parametrize("argv, message", [
    (["new", "My_Drill", "--topic", "broadcasting"], "'My_Drill' is not a drill id"),
    (["new", "-bad", "--topic", "broadcasting"], None),  # an option typer does not know: its own usage error
    (["new", "gqa", "--topic", "attention"], "a drill 'gqa' already exists"),
    (["new", "my-drill", "--topic", "broadcastin"], "unknown topic 'broadcastin'; did you mean broadcasting?"),
    (["new", "my-drill"], "Missing option '--topic'"),
])
def test_new_refuses_a_bad_id_an_existing_id_and_an_unknown_topic(runner, drill_path, argv, message):
    result = runner.invoke(app, argv)
    assert result.exit_code == 2, result.output
    if message:
        assert message in result.output
    assert "Traceback" not in result.output
    assert _files(drill_path) == []


def test_new_refuses_an_id_already_in_drill_path_even_when_its_spec_is_broken(runner, drill_path):
    (drill_path / "ragged").mkdir()
    (drill_path / "ragged" / "mine.yaml").write_text("id: mine\n")  # broken: most keys missing
    result = runner.invoke(app, ["new", "mine", "--topic", "ragged"])
    assert result.exit_code == 2 and "a drill 'mine' already exists" in result.output


def test_new_refuses_without_drill_path_or_with_a_missing_folder(runner, tmp_path, monkeypatch):
    monkeypatch.delenv("DRILL_PATH", raising=False)
    result = runner.invoke(app, ["new", "my-drill", "--topic", "ragged"])
    assert result.exit_code == 2 and "DRILL_PATH is not set" in result.output
    monkeypatch.setenv("DRILL_PATH", str(tmp_path / "absent"))
    result = runner.invoke(app, ["new", "my-drill", "--topic", "ragged"])
    assert result.exit_code == 2 and "is not a folder; create it" in result.output
    assert not (tmp_path / "absent").exists()


def test_new_never_overwrites_a_file_in_the_way(runner, drill_path):
    folder = drill_path / "ragged" / "solutions" / "my-drill"
    folder.mkdir(parents=True)
    result = runner.invoke(app, ["new", "my-drill", "--topic", "ragged"])
    assert result.exit_code == 2 and "exists already; `drill new` never overwrites a file" in result.output
    assert _files(drill_path) == []


def _fill_the_stub(reference: Path) -> None:
    """What the marker says: replace the marker comment and the raise below it with the return it names."""
    lines = reference.read_text().splitlines(keepends=True)
    (at,) = [i for i, line in enumerate(lines) if MARKER in line]
    assert lines[at + 1].lstrip().startswith("raise NotImplementedError")
    said = re.search(r"with:\s+(return .+)$", lines[at]).group(1)
    indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
    lines[at:at + 2] = [f"{indent}{said}\n"]
    reference.write_text("".join(lines))


@pytest.mark.slow
def test_validate_lists_what_is_left_then_is_green_once_the_stub_is_written(runner, drill_path):
    assert runner.invoke(app, ["new", "my-drill", "--topic", "broadcasting"]).exit_code == 0
    spec = drill_path / "broadcasting" / "my-drill.yaml"
    reference = spec.with_suffix(".py")

    first = runner.invoke(app, ["validate", str(spec), "--quiet"])
    assert first.exit_code == 1, first.output
    line = next(i for i, text in enumerate(reference.read_text().splitlines(), 1) if MARKER in text)
    assert (f"{reference}:{line}: (to fill in): trap_mean_of_everything(): replace this comment and the raise "
            "below with:  return x - x.mean()") in first.output
    assert "1 line(s) left to fill in" in first.output and "Traceback" not in first.output

    _fill_the_stub(reference)
    second = runner.invoke(app, ["validate", str(spec), "--quiet"])
    assert second.exit_code == 0, second.output
    assert "validate: 1 drill ok" in second.output


def test_the_catalogue_cache_is_keyed_on_a_drills_oracle_file_too(tmp_path):
    """The parser reads `<id>.oracle.py` (the oracle names a spec may use), so a change there parses again."""
    from grader.spec.names import oracle_file
    from trainer.catalogue_cache import cache_key

    spec = tmp_path / "ragged" / "mine.yaml"
    spec.parent.mkdir()
    spec.write_text("id: mine\n")
    before = cache_key([spec])
    oracle_file(spec).write_text("def mine_oracle(x):\n    return x\n")
    assert cache_key([spec]) != before


# ------------------------------------------------- all or nothing, only inside DRILL_PATH (issue 34, item 5)


def _everything(root: Path) -> list[str]:
    """Every file, folder and link under ``root`` (a folder left behind counts too)."""
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.mark.parametrize("link", ["ragged", "ragged/solutions"])
def test_new_refuses_a_symlinked_folder_that_leads_outside_drill_path(runner, drill_path, tmp_path, link):
    outside = tmp_path / "outside"
    outside.mkdir()
    (drill_path / link).parent.mkdir(parents=True, exist_ok=True)
    (drill_path / link).symlink_to(outside)
    before = _everything(drill_path)
    result = runner.invoke(app, ["new", "my-drill", "--topic", "ragged"])
    assert result.exit_code == 2, result.output
    assert f"{drill_path / link} is a symbolic link to {outside}, outside {drill_path}" in result.output
    assert "nothing was written" in result.output and "Traceback" not in result.output
    assert _everything(outside) == [] and _everything(drill_path) == before


def test_new_follows_a_symlinked_folder_that_stays_inside(runner, drill_path):
    (drill_path / "ragged" / "kept").mkdir(parents=True)
    (drill_path / "ragged" / "solutions").symlink_to("kept")
    result = runner.invoke(app, ["new", "my-drill", "--topic", "ragged"])
    assert result.exit_code == 0, result.output
    assert (drill_path / "ragged" / "kept" / "my-drill" / "ok_rowwise_sum.py").is_file()


@pytest.fixture
def read_only_as_for_anyone(monkeypatch):
    """A folder without write permission refuses new entries, for root too: root ignores the mode
    bits, so there os.mkdir and os.open(O_CREAT) answer EACCES in such a folder as the kernel does
    for anyone else (as another user the kernel's own refusal is what the test meets)."""
    import errno
    import os

    if os.geteuid() != 0:
        return
    real_mkdir, real_open = os.mkdir, os.open

    def refused(path) -> bool:
        parent = os.path.dirname(os.path.abspath(path))
        return not os.stat(parent).st_mode & 0o200

    def mkdir(path, *args, **kwargs):
        if refused(path):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_mkdir(path, *args, **kwargs)

    def open_(path, flags, *args, **kwargs):
        if flags & os.O_CREAT and not os.path.exists(path) and refused(path):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "mkdir", mkdir)
    monkeypatch.setattr(os, "open", open_)


def test_new_with_a_read_only_solutions_folder_writes_nothing_and_says_so(runner, drill_path,
                                                                           read_only_as_for_anyone):
    """The spec and the reference can be written, the solutions cannot: neither is left behind."""
    solutions = drill_path / "ragged" / "solutions"
    solutions.mkdir(parents=True)
    before = _everything(drill_path)
    solutions.chmod(0o555)
    try:
        result = runner.invoke(app, ["new", "my-drill", "--topic", "ragged"])
    finally:
        solutions.chmod(0o755)
    assert result.exit_code == 2, result.output
    assert f"cannot write the new drill under {drill_path}: Permission denied ({solutions / 'my-drill'})" \
        in result.output
    assert "nothing was written" in result.output and "Traceback" not in result.output
    assert _everything(drill_path) == before


def test_new_removes_the_folders_it_made_when_a_later_file_fails(runner, drill_path, monkeypatch):
    """The topic folder did not exist: the spec and reference are written in a new folder, then the
    last solution file fails (a full disk): nothing of it is left, the new folders included."""
    import errno
    import os

    real_open = os.open

    def open_(path, flags, *args, **kwargs):
        if str(path).endswith("bad_slip_column_mean.py"):
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", open_)
    result = runner.invoke(app, ["new", "my-drill", "--topic", "ragged"])
    assert result.exit_code == 2 and "No space left on device" in result.output, result.output
    assert "nothing was written" in result.output
    assert _everything(drill_path) == []
