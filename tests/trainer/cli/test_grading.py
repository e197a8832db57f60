"""CLI tests through typer's runner: list, show, check (--json, exit codes), validate."""
from __future__ import annotations

from tests.paths import REPO

import json
import re
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from trainer.cli import _register, app

SOLUTIONS = REPO / "drills" / "02-attention" / "solutions" / "mha-padding"
EXAMPLE = REPO / "drills" / "02-attention" / "mha-padding.yaml"


@pytest.fixture(scope="module")
def runner():
    _register()
    return CliRunner()


def test_list_shows_the_catalogue(runner):
    result = runner.invoke(app, ["list"])
    assert result.exit_code == 0, result.output
    assert "mha-padding" in result.output and "state" in result.output


def test_list_never_imports_torch():
    code = ("import sys; from typer.testing import CliRunner; from trainer.cli import app, _register; _register(); "
            "r = CliRunner().invoke(app, ['list']); assert r.exit_code == 0, r.output; "
            "bad = [m for m in ('torch', 'torchvision', 'scipy') if m in sys.modules]; print(bad); assert not bad")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr


def test_show(runner):
    result = runner.invoke(app, ["show", "mha-padding"])
    assert result.exit_code == 0
    assert "multi_head_attention(Q, K, V, pad_mask, H: int)" in result.output
    assert "(B, T, d)" in result.output and "target: 7:00" in result.output


def test_unknown_id_is_a_usage_error(runner):
    result = runner.invoke(app, ["show", "mha-paddin"])
    assert result.exit_code == 2
    assert "unknown drill id 'mha-paddin'" in result.output and "mha-padding" in result.output


def test_check_json_pass(runner, grader):
    result = runner.invoke(app, ["check", "mha-padding", str(SOLUTIONS / "ok_einsum.py"), "--json", "--seed", "5"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["drill"] == "mha-padding" and data["verdict"] == "pass"
    assert data["passed"] == data["total"] == len(data["cases"]) > 0
    assert data["trap"] is None
    case = data["cases"][0]
    assert set(case) >= {"name", "function", "verdict", "message", "dims", "expected_shape", "got_shape"}
    assert case["id"].startswith(case["name"] + "@")  # a spec case's id: grader.spec.case_id
    assert data["file"] == str(SOLUTIONS / "ok_einsum.py")  # with one FILE too


@pytest.mark.slow
def test_check_json_several_files_in_order(runner):
    files = [SOLUTIONS / "bad_scale_d_einsum.py", SOLUTIONS / "ok_einsum.py"]
    result = runner.invoke(app, ["check", "mha-padding", *map(str, files), "--json", "--seed", "5"])
    assert result.exit_code == 1
    lines = [json.loads(line) for line in result.stdout.strip().splitlines()]
    assert [d["file"] for d in lines] == [str(f) for f in files]
    assert lines[0]["verdict"] in ("wrong", "error") and lines[0]["trap"]["id"] == "scale-by-d"
    assert lines[1]["verdict"] == "pass"


@pytest.mark.slow
def test_several_files_are_graded_on_one_seed_printed_once_and_record_says_what_it_did(runner):
    files = [SOLUTIONS / "bad_scale_d_einsum.py", SOLUTIONS / "ok_einsum.py"]
    as_json = runner.invoke(app, ["check", "mha-padding", *map(str, files), "--json"])
    seeds = {json.loads(line)["seed"] for line in as_json.stdout.strip().splitlines()}
    assert len(seeds) == 1 and None not in seeds  # no --seed: one new seed for the whole run
    text = runner.invoke(app, ["check", "mha-padding", *map(str, files), "--record"])
    assert text.exit_code == 1
    [seed_line] = [line for line in text.stdout.splitlines() if "seed" in line]  # printed once
    assert seed_line.startswith("2 files, graded on seed ")
    assert "recorded 2 attempts (1 passed) as one sitting" in text.stderr
    assert "mha-padding is due again" in text.stderr


@pytest.mark.slow
def test_check_wrong_shape_explained(runner, tmp_path):
    sol = tmp_path / "sol.py"
    sol.write_text("import torch\ndef multi_head_attention(Q, K, V, pad_mask, H):\n    return Q.transpose(0, 1)\n")
    result = runner.invoke(app, ["check", "mha-padding", str(sol), "--json", "--seed", "5"])
    data = json.loads(result.stdout)
    assert result.exit_code == 1 and data["verdict"] == "wrong"
    case = data["cases"][0]
    assert "axes 0 and 1 are swapped (B and T)" in case["message"]
    assert case["got_shape"] == [case["expected_shape"][1], case["expected_shape"][0], case["expected_shape"][2]]


@pytest.mark.slow
def test_check_syntax_error_reports_line(runner, tmp_path):
    sol = tmp_path / "sol.py"
    sol.write_text("import torch\n\ndef multi_head_attention(Q, K, V, pad_mask, H)\n    return Q\n")
    result = runner.invoke(app, ["check", "mha-padding", str(sol), "--json"])
    data = json.loads(result.stdout)
    assert data["verdict"] == "error" and "line 3" in data["cases"][0]["message"]


@pytest.mark.slow
def test_check_missing_function(runner, tmp_path):
    sol = tmp_path / "sol.py"
    sol.write_text("def attention(Q, K, V, pad_mask, H):\n    return Q\n")
    data = json.loads(runner.invoke(app, ["check", "mha-padding", str(sol), "--json"]).stdout)
    assert data["verdict"] == "missing" and "multi_head_attention" in data["cases"][0]["message"]


def test_check_usage_errors(runner, tmp_path):
    assert runner.invoke(app, ["check", "nope", str(SOLUTIONS / "ok_einsum.py")]).exit_code == 2
    result = runner.invoke(app, ["check", "mha-padding", str(tmp_path / "absent.py")])
    assert result.exit_code == 2 and "cannot read" in result.output


@pytest.mark.slow
def test_check_record_stores_the_attempt(runner, tmp_path):
    result = runner.invoke(app, ["check", "mha-padding", str(SOLUTIONS / "ok_einsum.py"), "--record", "--seed", "3"])
    assert result.exit_code == 0, result.output
    out = tmp_path / "export.json"
    assert runner.invoke(app, ["export", str(out)]).exit_code == 0
    attempts = json.loads(out.read_text())["attempts"]
    assert [(a["drill"], a["verdict"]) for a in attempts] == [("mha-padding", "pass")]


@pytest.mark.slow
def test_validate_a_path(runner):
    result = runner.invoke(app, ["validate", str(EXAMPLE), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "1 drill ok" in result.output


@pytest.mark.slow
def test_validate_names_a_trap_that_passes(runner, tmp_path):
    folder = tmp_path / "99-test"
    folder.mkdir()
    (folder / "mha-padding.yaml").write_text(EXAMPLE.read_text())
    ref = EXAMPLE.with_suffix(".py").read_text()
    head = re.search(r"^def trap_no_mask\(.*\):$", ref, re.M)
    assert head is not None, "the example's trap_no_mask() moved"
    ref = ref.replace(head.group(0), "def trap_no_mask(Q, K, V, pad_mask, H: int, **kw):\n"  # the trap is the answer
                      "    return multi_head_attention(Q, K, V, pad_mask, H, **kw)\n\n\n"
                      + head.group(0).replace("trap_no_mask", "_unused"))
    assert ref != EXAMPLE.with_suffix(".py").read_text()
    (folder / "mha-padding.py").write_text(ref)
    result = runner.invoke(app, ["validate", str(folder), "--quiet"])
    assert result.exit_code == 1
    assert "traps.no-mask: the trap trap_no_mask() passes every case" in result.output


@pytest.mark.slow  # grades a file for real
@pytest.mark.cold_catalogue  # no cache yet: the one parse is the one that writes it
def test_check_parses_the_catalogue_once(runner, monkeypatch):
    """`drill check` hands the catalogue it read to the grader: every spec file is parsed
    once, not once for the command and again inside Grader()."""
    import grader.spec.parse as parse
    from grader.catalogue import spec_files

    calls: list[str] = []
    real = parse.parse_spec

    def counting(path, *args, **kwargs):
        calls.append(str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(parse, "parse_spec", counting)
    result = runner.invoke(app, ["check", "mha-padding", str(SOLUTIONS / "ok_einsum.py"), "--json"])
    assert result.exit_code in (0, 1), result.output
    assert json.loads(result.stdout.splitlines()[-1])["drill"] == "mha-padding"
    files = [str(p) for p in spec_files(None)]
    assert sorted(calls) == sorted(files), "each spec file parsed once"


@pytest.mark.parametrize("columns", [100, 60, 30, 12])
def test_validate_progress_bar_fits_the_terminal(monkeypatch, capsys, columns):
    """A bar wider than the terminal wraps, and each `\\r` update then starts a new line (seen at 60x20)."""
    from trainer.cli.grading import _progress

    monkeypatch.setenv("COLUMNS", str(columns))
    for i, label in enumerate(["im2col", "causal-padding-mask", "a-very-long-drill-id-from-drill-path"], 1):
        _progress(i, 32, label, True)
        line = capsys.readouterr().err
        assert line.startswith("\r") and "\n" not in line
        assert len(line) - 1 < columns, repr(line)
        assert f" {i}/32" in line or columns < 15


@pytest.mark.slow
def test_check_in_a_process_of_its_own_ends_with_its_status_every_line_and_its_records(tmp_path):
    """`drill check` leaves without the interpreter's teardown of torch (trainer.cli.QUICK_EXIT): the
    exit status and every line written to a pipe are still there, and nothing it started is left;
    `check --record` writes the store and ends the usual way, its attempts kept."""
    import os

    env = {**os.environ, "DRILL_HOME": str(tmp_path / "home"), "PYTHONPATH": str(REPO), "TMPDIR": str(tmp_path)}
    files = [str(SOLUTIONS / "ok_einsum.py"), str(SOLUTIONS / "bad_scale_d.py")]
    run = [sys.executable, "-m", "trainer", "check", "mha-padding", *files, "--seed", "3"]
    plain = subprocess.run([*run, "--json"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert plain.returncode == 1, plain.stderr
    lines = [json.loads(line) for line in plain.stdout.splitlines()]
    assert [(r["file"], r["verdict"] == "pass") for r in lines] == [(files[0], True), (files[1], False)]
    assert "Traceback" not in plain.stderr
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("drill-sandbox")] == []

    recorded = subprocess.run([*run, "--record"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert recorded.returncode == 1, recorded.stderr
    out = tmp_path / "export.json"
    exported = subprocess.run([sys.executable, "-m", "trainer", "export", str(out)], capture_output=True, text=True,
                              env=env, cwd=tmp_path, timeout=120)
    assert exported.returncode == 0, exported.stderr
    attempts = json.loads(out.read_text())["attempts"]
    assert sorted(a["verdict"] == "pass" for a in attempts) == [False, True]


def test_only_runs_that_write_no_store_skip_the_teardown(monkeypatch):
    import trainer.cli as cli

    monkeypatch.setitem(sys.modules, "torch", sys.modules.get("torch") or object())
    assert cli._ends_quickly("check", ["check", "mha-padding", "a.py"])
    assert cli._ends_quickly("validate", ["validate"])
    assert not cli._ends_quickly("check", ["check", "mha-padding", "a.py", "--record"])
    assert not cli._ends_quickly("warmup", ["warmup"])
    monkeypatch.delitem(sys.modules, "torch")
    assert not cli._ends_quickly("check", ["check", "mha-padding", "a.py"])  # torch never loaded: nothing to skip


def test_the_variant_table_folds_a_long_source_under_its_column_only_for_a_terminal():
    from grader.catalogue import load_catalogue
    from trainer.cli.grading import _variant_table

    specs = [load_catalogue().get("masked-mean")]
    whole = _variant_table(specs)
    folded = _variant_table(specs, 70)
    assert max(len(line) for line in whole) > 70  # the sources run past 70 columns on one line
    assert all(len(line) <= 70 for line in folded)
    column = whole[2].index("source")
    rows = [line for line in folded[3:] if line.strip()]
    assert all(line[column - 2:column] == "  " for line in rows)  # every part of a source in its own column
    def words(lines: list[str]) -> list[str]:
        return " ".join(line[column:].strip() for line in lines).split()

    assert words(folded[3:]) == words(whole[3:])  # the same words in the source column, none split
