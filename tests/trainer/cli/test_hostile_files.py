"""Every file the tool reads is untrusted input (issue 11, points 3 to 5).

Families: files that are not regular (FIFO, /dev/zero, a folder, too large),
YAML bombs (aliases, depth, unhashable keys, values that cannot be built),
`drill import` ranges, terminal escapes, and closed or odd standard streams.
Commands that could hang run in a subprocess with a timeout, so a regression
fails the test instead of stalling the suite.
"""
from __future__ import annotations

from tests.paths import REPO

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from grader.spec import safe_yaml
from grader.catalogue import load_catalogue
from grader.spec import SpecError
from grader.spec.parse import parse_spec
from grader.spec.userfile import UnreadableFile, read_bytes, read_text
from trainer.text.markup import md_text, printable

ROOT = REPO
EXAMPLE = ROOT / "drills" / "02-attention" / "mha-padding.yaml"
BOMB = ('a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
        + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)))
ESC = "\x1b[2J\x1b[31m"


def drill(args: list[str], env: dict[str, str] | None = None, timeout: float = 60, **kw) -> subprocess.CompletedProcess:
    """`python -m trainer ARGS` from this worktree; a hang fails the test at `timeout`."""
    full = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1", **(env or {}))
    return subprocess.run([sys.executable, "-m", "trainer", *args], env=full, timeout=timeout,
                          capture_output=True, text=True, **kw)


def no_traceback(proc: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout, proc.stderr[-2000:]
    assert "\x1b" not in proc.stderr, proc.stderr[-500:]


def spec_copy(folder: Path, text: str | None = None, reference: str | None = None, stem: str = "mha-padding") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{stem}.yaml"
    path.write_text(EXAMPLE.read_text() if text is None else text)
    (folder / f"{stem}.py").write_text(EXAMPLE.with_suffix(".py").read_text() if reference is None else reference)
    return path


def problems_of(path: Path) -> list[str]:
    with pytest.raises(SpecError) as info:
        parse_spec(path)
    return info.value.problems


# ------------------------------------------------------- files that are not regular


def test_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    with pytest.raises(UnreadableFile, match="FIFO"):
        read_bytes(fifo, 1024)  # O_NONBLOCK: the open returns although no writer exists


def test_dev_zero_folder_and_oversized_files_are_refused(tmp_path):
    with pytest.raises(UnreadableFile, match="character device"):
        read_bytes("/dev/zero", 1024)
    with pytest.raises(UnreadableFile, match="folder"):
        read_bytes(tmp_path, 1024)
    big = tmp_path / "big.py"
    big.write_bytes(b"x" * 2048)
    with pytest.raises(UnreadableFile, match="over the 1.0 KiB limit"):
        read_bytes(big, 1024)
    with pytest.raises(UnreadableFile, match="no such file") as info:
        read_text(tmp_path / "absent.py", 1024)
    assert info.value.missing
    (tmp_path / "latin.py").write_bytes(b"\xff\xfe")
    with pytest.raises(UnreadableFile, match="not UTF-8"):
        read_text(tmp_path / "latin.py", 1024)


@pytest.mark.slow
def test_check_refuses_fifo_and_dev_zero_solutions(tmp_path):
    fifo = tmp_path / "solution.py"
    os.mkfifo(fifo)
    for target, words in ((fifo, "FIFO"), (Path("/dev/zero"), "character device")):
        proc = drill(["check", "gqa", str(target)], timeout=60)
        assert proc.returncode == 2 and words in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
        no_traceback(proc)


@pytest.mark.slow
def test_bad_drill_path_specs_never_break_the_builtin_drills(tmp_path):
    extra = tmp_path / "extra"
    extra.mkdir()
    os.mkfifo(extra / "fifo.yaml")
    os.symlink("/dev/zero", extra / "zero.yaml")
    (extra / "bomb.yaml").write_text(BOMB)
    (extra / "deep.yaml").write_text("id: " + "[" * 5000 + "]" * 5000 + "\n")
    spec_copy(extra / "esc", text=EXAMPLE.read_text() + f'"{ESC}": 1\n'.replace("\x1b", "\\e"))
    spec_copy(extra / "copy", stem="gqa")  # a second `gqa`: the built-in one wins
    proc = drill(["list"], env={"DRILL_PATH": str(extra)}, timeout=60)
    assert proc.returncode == 0
    assert "mha-padding" in proc.stdout and "gqa" in proc.stdout
    warnings = [line for line in proc.stderr.splitlines() if line]
    assert len(warnings) == 6 and all(w.startswith("drill: skipped a broken spec: ") for w in warnings), warnings
    assert "the text holds the control character \\x1b; write plain text" in proc.stderr  # shown, not obeyed
    no_traceback(proc)


def test_a_drill_path_entry_that_is_a_device_or_fifo_is_named(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    cat = load_catalogue([Path("/dev/zero"), tmp_path / "pipe"])
    assert not cat.specs
    assert cat.warnings() == [
        "skipped a broken spec: /dev/zero:0: (file): it is a character device, not a regular file",
        f"skipped a broken spec: {tmp_path / 'pipe'}:0: (file): it is a FIFO (named pipe), not a regular file"]


def test_catalogue_survives_a_spec_whose_loader_crashes(tmp_path, monkeypatch):
    import grader.spec.parse as spec_module

    good = spec_copy(tmp_path / "a")
    bad = spec_copy(tmp_path / "b", stem="gqa")
    real = spec_module.parse_spec

    def flaky(path, *a, **kw):
        if Path(path) == bad:
            raise RecursionError("deep")
        return real(path, *a, **kw)

    monkeypatch.setattr(spec_module, "parse_spec", flaky)
    cat = load_catalogue([good.parent, bad.parent])
    assert "mha-padding" in cat.specs and "gqa" not in cat.specs
    assert cat.warnings() == [f"skipped a broken spec: {bad}:0: (file): cannot be checked (RecursionError)"]


def test_a_reference_that_loops_at_import_gets_a_deadline(tmp_path, monkeypatch):
    import grader.cases.prepare as cases

    path = spec_copy(tmp_path / "loop", reference=EXAMPLE.with_suffix(".py").read_text() + "\nwhile True:\n    pass\n")
    spec = parse_spec(path)
    monkeypatch.setattr(cases, "REFERENCE_IMPORT_SECONDS", 0.2)
    with pytest.raises(cases.CaseError, match="did not finish importing within 0.2 s"):
        cases.load_reference(spec)
    assert not any(name.startswith("_drill_ref_mha_padding") and getattr(m, "__file__", "") == str(spec.reference_path)
                   for name, m in sys.modules.items())


def test_a_reference_that_loops_or_exits_while_building_cases_is_the_drills_fault(tmp_path, monkeypatch):
    import grader.cases.prepare as cases

    source = EXAMPLE.with_suffix(".py").read_text()
    text = EXAMPLE.read_text().replace("oracle: sdpa_mha", "oracle: reference")
    looping = parse_spec(spec_copy(tmp_path / "loop", text=text, reference=source + "\n\ndef multi_head_attention(*a, **k):\n"
                                                                                "    while True:\n        pass\n"))
    monkeypatch.setattr(cases, "PREPARE_SECONDS", 0.3)
    with pytest.raises(cases.CaseError, match="did not finish building the cases within 0.3 s"):
        cases.prepare(looping, 1)
    exiting = parse_spec(spec_copy(tmp_path / "exit", reference=source + "\nimport sys\nsys.exit(3)\n"))
    with pytest.raises(cases.CaseError, match=r"called exit\(3\) while importing"):
        cases.load_reference(exiting)


def test_a_reference_that_is_a_fifo_is_a_spec_problem(tmp_path):
    path = spec_copy(tmp_path / "f")
    path.with_suffix(".py").unlink()
    os.mkfifo(path.with_suffix(".py"))
    assert any("(reference): it is a FIFO" in p for p in problems_of(path))


# ------------------------------------------------------------------ YAML bombs


def test_alias_bomb_is_refused_at_once_with_its_line(tmp_path):
    path = spec_copy(tmp_path / "x", text=BOMB)
    problems = problems_of(path)  # refused at the first anchor, before anything is expanded
    assert problems == [f"{path}:1: (yaml): malformed YAML: anchors (&a) are not allowed; write the value out"]


@pytest.mark.parametrize("text, line, words", [
    ("id: x\nlist: *nothing\n", 2, "aliases (*nothing) are not allowed"),
    ("id: " + "[" * 3000 + "]" * 3000 + "\n", 1, f"nested more than {safe_yaml.MAX_DEPTH} levels deep"),
    ("id: x\nhints: [" + ", ".join(["1"] * (safe_yaml.MAX_NODES + 1)) + "]\n", 2,
     f"more than {safe_yaml.MAX_NODES} values in one file"),
    ("id: x\n? [a, b]\n: 1\n", 2, "a key must be a plain name or number"),
    ("id: x\n? {a: 1}\n: 1\n", 2, "a key must be a plain name or number"),
    ("id: x\nwhen: 2026-13-45\n", 2, "a value cannot be read: month must be in 1..12"),
    ("id: x\ntimeout: " + "9" * 5000 + "\n", 2, "a value cannot be read: Exceeds the limit"),
    ("id: x\n\x1b: 1\n", 2, "the character #x001b is not allowed in YAML"),
])
def test_yaml_that_cannot_be_built_is_one_spec_error(tmp_path, text, line, words):
    path = spec_copy(tmp_path / "x", text=text)
    problems = problems_of(path)
    assert len(problems) == 1 and problems[0].startswith(f"{path}:{line}: (yaml): ") and words in problems[0], problems


@pytest.mark.parametrize("field, value, words", [
    ("timeout", ".inf", "timeout: must be a number of seconds above 0 and at most 300, not inf"),
    ("timeout", ".nan", "timeout: must be a number of seconds above 0"),
    ("timeout", "0", "timeout: must be a number of seconds above 0"),
    ("timeout", "1" + "0" * 400, "timeout: the number is too large"),
    ("target_seconds", "10000000", "target_seconds: must be a positive number of seconds, at most 86400"),
    ("number", "-4", "number: must be a whole number from 0 to 9999"),
])
def test_spec_numbers_must_be_finite_and_sane(tmp_path, field, value, words):
    text = EXAMPLE.read_text()
    lines = [ln for ln in text.splitlines() if not ln.startswith(f"{field}:")]
    path = spec_copy(tmp_path / "x", text="\n".join(lines) + f"\n{field}: {value}\n")
    problems = problems_of(path)
    assert any(words in p for p in problems), problems


def test_case_timeout_and_tolerance_must_be_finite(tmp_path):
    text = EXAMPLE.read_text().replace("tolerance:\n", "tolerance:\n  float64: {atol: .inf, rtol: 0}\n", 1)
    text = text.replace("- {name: fp32-right-padding,", "- {timeout: .inf, name: fp32-right-padding,", 1)
    problems = problems_of(spec_copy(tmp_path / "x", text=text))
    assert any("tolerance.float64: tolerances must be finite" in p for p in problems), problems
    assert any("cases[0].timeout: must be a number of seconds" in p for p in problems), problems


def test_ids_are_matched_whole(tmp_path):
    text = EXAMPLE.read_text().replace("id: mha-padding", 'id: "mha-padding\\n"', 1)
    assert any("must be lower-case words joined by '-'" in p for p in problems_of(spec_copy(tmp_path / "x", text=text)))
    from trainer.team import reading

    assert reading._TRAP_ID.fullmatch("no-scale\n") is None and reading._SESSION_ID.fullmatch("0" * 16 + "\n") is None


def test_team_session_bombs_are_team_errors(tmp_path):
    from trainer.team import TeamError, parse_session

    for text in (BOMB, "drills: " + "[" * 3000 + "]" * 3000, "? [a]\n: 1\n"):
        with pytest.raises(TeamError) as info:
            parse_session(text, {"gqa"}, "s.yaml")
        assert info.value.problems[0].startswith("s.yaml:") and "not a valid session file" in info.value.problems[0]


@pytest.mark.slow
def test_team_board_skips_a_bomb_session_and_a_fifo_in_its_folder(tmp_path):
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "session.yaml").write_text(BOMB)
    os.mkfifo(folder / "evil.json")
    os.mkfifo(folder / "evil.yaml")
    proc = drill(["team", "board", str(folder)], timeout=60)
    assert proc.returncode == 0 and "not a regular file" in proc.stderr, proc.stderr
    no_traceback(proc)
    proc = drill(["team", "run", str(folder / "session.yaml"), "--name", "ada", "--file", "gqa=x.py"], timeout=60)
    assert proc.returncode == 2 and "not a valid session file" in proc.stderr and "anchors" in proc.stderr
    no_traceback(proc)


# ---------------------------------------------------------------- import ranges


def _export(**attempt) -> dict:
    a = {"drill": "gqa", "mode": "solve", "started_at": "2026-12-01T10:00:00+00:00", "seconds": 60.0,
         "verdict": "pass", "hints": 0, "code": "x = 1\n"}
    a.update(attempt)
    return {"format": 1, "exported_at": "2026-12-01T11:00:00+00:00", "attempts": [a], "cards": [], "sessions": []}


@pytest.mark.parametrize("field, value, words", [
    ("seconds", float("inf"), "attempts[0].seconds must be a number of seconds"),
    ("seconds", float("nan"), "attempts[0].seconds must be a number of seconds"),
    ("seconds", 10.0**12, "attempts[0].seconds must be a number of seconds"),
    ("hints", 10**30, "attempts[0].hints must be a whole number from 0 to 1000"),
    ("seed", 2**64, "attempts[0].seed must be a 64-bit whole number"),
    ("started_at", "9999-12-31T23:59:59-14:00", "cannot be converted to UTC"),
    ("started_at", "0001-01-01T00:00:00+14:00", "cannot be converted to UTC"),
    ("started_at", "1200-01-01T00:00:00+00:00", "must lie between the years 1970 and 2200"),
    ("drill", "gqa\n", "attempts[0].drill must be a drill id"),
    ("drill", ESC + "gqa", "attempts[0].drill must be a drill id"),
    ("traps", ["no-scale\n"], "attempts[0].traps must be a list of at most 20 trap ids"),
    ("failing_case", "case" + ESC, "attempts[0].failing_case must be a case name"),
    ("target_seconds", float("inf"), "attempts[0].target_seconds must be a number of seconds above 0"),
])
def test_import_range_checks_every_attempt_field(field, value, words):
    from trainer.store import ImportRefusedError, open_store

    with open_store() as store:
        with pytest.raises(ImportRefusedError) as info:
            store.import_(_export(**{field: value}))
        assert store.counts()["attempts"] == 0
    assert words in str(info.value)
    assert "\x1b" not in str(info.value) and "\n" not in str(info.value)


def test_import_bounds_cards_and_session_nesting():
    from trainer.store import ImportRefusedError, open_store

    data = _export()
    data["cards"] = [{"drill": "gqa", "state": "review", "due": "2026-12-02T00:00:00+00:00", "stability": float("inf"),
                      "difficulty": 99.0, "reps": 10**9, "lapses": 0}]
    deep: dict = {}
    for _ in range(50):
        deep = {"a": deep}
    data["sessions"] = [{"uid": "s1", "kind": "mock", "started_at": "2026-12-01T00:00:00+00:00", "meta": deep}]
    with open_store() as store, pytest.raises(ImportRefusedError) as info:
        store.import_(data)
    text = str(info.value)
    for words in ("cards[0].stability", "cards[0].difficulty", "cards[0].reps", "sessions[0].meta must be an object nested"):
        assert words in text, text


def test_import_with_ill_typed_ids_is_refused_not_a_type_error():
    from trainer.store import ImportRefusedError, open_store

    data = _export(session={"a": 1})
    data["sessions"] = [{"uid": [1], "kind": "mock", "started_at": "2026-12-01T00:00:00+00:00"}]
    data["cards"] = [{"drill": ["gqa"], "state": "review", "due": "2026-12-02T00:00:00+00:00", "stability": 1.0,
                      "difficulty": 5.0, "reps": 1, "lapses": 0}] * 2
    with open_store() as store, pytest.raises(ImportRefusedError) as info:
        store.import_(data)
    for words in ("sessions[0].uid must be", "attempts[0].session must be", "cards[1].drill must be"):
        assert words in str(info.value), str(info.value)


@pytest.mark.slow
def test_import_command_refuses_hostile_files_without_a_traceback(tmp_path):
    runner_cases = [
        ("deep.json", "[" * 100000 + "]" * 100000, "nested too deeply"),
        ("bigint.json", '{"format": ' + "9" * 5000 + "}", "Exceeds the limit"),
        ("flag.json", json.dumps(dict(_export(), format=True)), "unsupported format True"),
    ]
    from trainer.cli import _register, app

    _register()
    for name, text, words in runner_cases:
        (tmp_path / name).write_text(text)
        result = CliRunner().invoke(app, ["import", str(tmp_path / name)])
        assert result.exit_code == 2 and words in result.output, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    for target in (str(fifo), "/dev/zero"):
        proc = drill(["import", target], timeout=60)
        assert proc.returncode == 2 and "not a regular file" in proc.stderr
        no_traceback(proc)


def test_a_stored_solution_is_capped_and_says_so():
    from datetime import datetime, timezone

    from trainer.store import MAX_CODE_CHARS, NewAttempt, open_store

    code = "x = 1\n" * (MAX_CODE_CHARS // 3)
    with open_store() as store:
        store.record_attempt(NewAttempt("gqa", "solve", datetime(2026, 12, 1, tzinfo=timezone.utc), 30.0, "wrong",
                                        code=code))
        stored = store.attempts()[0].code
    assert stored.startswith(code[:1000]) and len(stored) < MAX_CODE_CHARS + 200
    assert f"the file had {len(code)} characters, only the first {MAX_CODE_CHARS} are stored" in stored


# ------------------------------------------------------------- terminal escapes


def test_printable_shows_control_characters_as_escapes():
    assert printable("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert printable("line\nnext\ttab\r") == "line\\nnext\\ttab\\r"
    assert printable("bidi\u202eevil\u200b") == "bidi\\u202eevil\\u200b"
    assert printable("\x7f\x9b") == "\\x7f\\x9b"
    assert printable("plain é ✓ (B, T, d)") == "plain é ✓ (B, T, d)"
    assert printable("a\nb", keep="\n") == "a\nb"
    assert "\x1b" not in md_text("x" + ESC)


@pytest.mark.slow
def test_session_title_and_spec_keys_reach_the_terminal_escaped(tmp_path):
    from datetime import datetime, timezone

    from trainer.team.render import render_board_html, render_board_md, render_board_text
    from trainer.team import DrillResult, MemberResult, Run, build_board

    ada = MemberResult("ada", "0" * 16, (Run(datetime(2026, 12, 1, tzinfo=timezone.utc), "repl", "drill 0.1.0",
                                            (DrillResult("gqa", "passed", 100.0, 1, cases="0" * 16),)),))
    board = build_board([ada], ["gqa"])
    text = render_board_text(board, "evil" + ESC, [], color=False)
    assert "evil\\x1b[2J\\x1b[31m" in text and "\x1b" not in text
    for render in (render_board_md, render_board_html):
        assert "\x1b" not in render(board, "evil" + ESC, [])
    key = f'"{ESC}key": 1\n'.replace("\x1b", "\\e")
    path = spec_copy(tmp_path / "x", text=EXAMPLE.read_text() + key)
    warnings = load_catalogue([path.parent]).warnings()
    line = len(EXAMPLE.read_text().splitlines()) + 1
    assert warnings == [f"skipped a broken spec: {path}:{line}: (yaml): malformed YAML: "
                        "the text holds the control character \\x1b; write plain text"]
    proc = drill(["validate", str(path), "-q"], timeout=120)
    assert "control character \\x1b" in proc.stderr and proc.returncode == 1
    no_traceback(proc)


@pytest.mark.parametrize("old, new", [
    ("title: Multi", 'title: "\\e[2J" \nt2: Multi'),
    ("prompt: |", 'prompt: "bell\\a"\nsolution_notes: |'),
    ("hints:\n", 'hints: ["\\u202eevil"]\nh2:\n'),
])
def test_spec_text_with_control_characters_is_refused_with_its_line(tmp_path, old, new):
    text = EXAMPLE.read_text()
    assert old in text
    path = spec_copy(tmp_path / "x", text=text.replace(old, new, 1))
    problems = problems_of(path)
    assert len(problems) == 1 and "the text holds the control character" in problems[0], problems
    assert "\x1b" not in problems[0] and "\x07" not in problems[0] and "\u202e" not in problems[0]


@pytest.mark.slow
def test_a_solution_path_with_escapes_is_printed_escaped(tmp_path):
    target = tmp_path / f"sol{ESC}.py"
    proc = drill(["check", "gqa", str(target)], timeout=60)
    assert proc.returncode == 2 and "no such file" in proc.stderr and "\\x1b[2J" in proc.stderr
    no_traceback(proc)


# ---------------------------------------------------------------- odd streams


@pytest.mark.slow
def test_closed_stdout_ends_with_one_line_naming_it():
    full = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "trainer", "list"], env=full, timeout=60, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, preexec_fn=lambda: os.close(1))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "drill: standard output is closed or not writable (was the command run with >&- ?); "
        "give it somewhere to write, such as > FILE or > /dev/null"]
    with open(os.devnull) as read_only:  # `drill list 1</dev/null`
        proc = subprocess.run([sys.executable, "-m", "trainer", "list"], env=full, timeout=60, stdout=read_only,
                              stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 2 and "standard output is closed or not writable" in proc.stderr


@pytest.mark.slow
def test_closed_stdin_and_stderr_do_not_crash():
    full = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "trainer", "list"], env=full, timeout=60, capture_output=True,
                          text=True, preexec_fn=lambda: os.close(0))
    assert proc.returncode == 0 and "mha-padding" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "trainer", "show", "gqa"], env=full, timeout=60,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, preexec_fn=lambda: os.close(2))
    assert proc.returncode == 0 and "gqa" in proc.stdout


@pytest.mark.slow
@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_stdout_is_one_line():
    with open("/dev/full", "w") as full_dev:
        proc = subprocess.run([sys.executable, "-m", "trainer", "list"], stdout=full_dev, stderr=subprocess.PIPE,
                              text=True, timeout=60, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.returncode == 1 and proc.stderr.strip().splitlines() == ["drill: cannot write: No space left on device"]


@pytest.mark.slow
def test_an_address_space_too_small_for_torch_is_named():
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (1024**3, resource.getrlimit(resource.RLIMIT_AS)[1]))

    full = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, "-m", "trainer", "check", "gqa", str(EXAMPLE)], env=full, timeout=60,
                          capture_output=True, text=True, preexec_fn=limit)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "address-space limit (ulimit -v) is 1024 MB, too low to load torch" in lines[0]
    proc = subprocess.run([sys.executable, "-m", "trainer", "list"], env=full, timeout=60, capture_output=True,
                          text=True, preexec_fn=limit)
    assert proc.returncode == 0 and "gqa" in proc.stdout  # torch-free commands still work


def test_safe_yaml_loads_ordinary_documents():
    assert safe_yaml.load("a: [1, 2, {b: c}]\nd: 2026-12-01\n")["a"][2] == {"b": "c"}
    with pytest.raises(yaml.YAMLError):
        safe_yaml.load("a: &x 1\nb: *x\n")


def test_a_bad_character_after_accented_text_is_placed_on_its_own_line():
    """libyaml (grader.spec.safe_yaml's event parser where PyYAML has it) counts a reader error's position
    in bytes: two-byte letters before the character must not push its line down."""
    text = "id: éééééééééééé\nprompt: ééééé\nc: 1\n\x1b: 1\n"
    with pytest.raises(yaml.YAMLError) as info:
        safe_yaml.load(text)
    line, words = safe_yaml.problem_line(info.value, text)
    assert line == 4 and words.startswith("the character #x001b is not allowed in YAML"), (line, words)
    deep = "a: 1\nb: " + "[" * 5000 + "\n"
    with pytest.raises(yaml.YAMLError) as info:
        safe_yaml.load(deep)
    assert safe_yaml.problem_line(info.value, deep) == (2, "nested more than 32 levels deep")


def test_a_progress_database_that_is_a_fifo_is_named_not_read(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    os.mkfifo(home / "progress.db")
    (tmp_path / "e.json").write_text(json.dumps(_export()))
    proc = drill(["import", str(tmp_path / "e.json")], env={"DRILL_HOME": str(home)}, timeout=60)
    assert proc.returncode != 0 and "progress.db there is not a regular file" in proc.stderr, proc.stderr
    no_traceback(proc)


def test_team_files_with_numbers_out_of_range_are_refused_and_times_clamped():
    from trainer.team import ResultsError, TeamError, parse_results, parse_session

    with pytest.raises(TeamError, match="minutes must be a number from 1 to 600"):
        parse_session("drills: [gqa]\nminutes: " + "9" * 400 + "\nseed: 1\n", {"gqa"})
    run = {"finished_at": "2026-12-01T00:00:00+00:00", "mode": "repl", "grader": "drill 0.1.0",
           "drills": [{"drill": "gqa", "status": "passed", "seconds": 10}]}
    base = {"format": 2, "kind": "drill-team-results", "session": "0" * 16, "name": "ada", "runs": [run]}
    huge = json.dumps(base).replace('"seconds": 10', '"seconds": ' + "9" * 400).encode()
    with pytest.raises(ResultsError, match="seconds must be a number from 0 to 86400"):
        parse_results(huge, "r.json", {"gqa"})
    # a time no datetime holds in UTC is clamped to the last or first one, not refused (issue 34: dates
    # are placed, never fatal); text that is not a time with a zone is still refused
    from trainer.clock import EARLIEST, LATEST

    for when, placed in (("9999-12-31T23:59:59-14:00", LATEST), ("0001-01-01T00:00:00+14:00", EARLIEST)):
        member = parse_results(json.dumps(dict(base, runs=[dict(run, finished_at=when)])).encode(), "r.json", {"gqa"})
        assert member.runs[0].finished_at == placed
    for when in ("10000-01-01T00:00:00+00:00", "2026-12-01T00:00:00"):
        with pytest.raises(ResultsError, match="finished_at must be an ISO-8601 time"):
            parse_results(json.dumps(dict(base, runs=[dict(run, finished_at=when)])).encode(), "r.json", {"gqa"})


def test_writing_to_a_device_or_fifo_never_renames_over_it(tmp_path):
    import errno
    import stat

    from trainer.files import write_atomically

    write_atomically(Path(os.devnull), "nothing\n")  # written in place: /dev/null stays a device
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    with pytest.raises(OSError) as info:
        write_atomically(fifo, "x")  # nobody reads it: an error at once, not a hang
    assert info.value.errno == errno.ENXIO and "no program is reading" in str(info.value)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    with pytest.raises(OSError, match="it is a folder"):
        write_atomically(tmp_path, "x")
