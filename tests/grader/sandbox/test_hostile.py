"""Hostile submissions against the sandbox, graded on a toy drill (tests/fixtures/drills).

Each fixture in tests/hostile/ is bounded, so it is harmless even without a
sandbox. Every test asserts the verdict (and the words a person needs), that
no process of the child is left behind, and that the host files are untouched:
DRILL_HOME's contents hash the same before and after, and the canary path
named in $DRILL_CANARY does not exist.
"""
from __future__ import annotations

from tests.paths import TESTS

import dataclasses
import hashlib
import os
import time
from pathlib import Path
from typing import Iterator

import pytest

from grader import sandbox
from grader.sandbox import Limits, confine

HOSTILE = TESTS / "hostile"
TOY = TESTS / "fixtures" / "drills"
DRILL = "sandbox-toy"
SEED = 7
# generous for what must not time out: a loaded machine (CI beside other work) must not turn a verdict into a timeout
FAST = Limits(case_timeout=5.0, total_timeout=20.0, memory_bytes=2**30, rss_poll=0.02)
SHORT = dataclasses.replace(FAST, case_timeout=0.6, total_timeout=2.0)  # for what must time out
TICKS = os.sysconf("SC_CLK_TCK")

pytestmark = [pytest.mark.slow,  # attacks the sandbox
              pytest.mark.skipif(not confine.supported_arch(), reason="the sandbox confinement is Linux x86_64 only")]


@pytest.fixture(scope="module")
def toy_grader():
    from grader.engine import Grader
    from grader.catalogue import load_catalogue

    grader = Grader(load_catalogue([TOY]), limits=FAST)
    grader.prepared(grader.spec(DRILL), SEED)  # build the cases once
    return grader


@dataclasses.dataclass
class Host:
    home: Path
    canary: Path


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted([folder, *folder.rglob("*")]):
        st = path.lstat()
        h.update(f"{path.relative_to(folder)} {st.st_mode} {st.st_uid} {st.st_mtime_ns}".encode())
        if path.is_file():
            h.update(path.read_bytes())
    return h.hexdigest()


@pytest.fixture
def host(_drill_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Host]:
    home = _drill_home
    home.mkdir(parents=True, exist_ok=True)
    (home / "progress.db").write_bytes(b"SQLite format 3\x00" + bytes(range(256)))
    (home / "settings.toml").write_text("daily_new = 3\n")
    canary = tmp_path / "canary"
    monkeypatch.setenv("DRILL_CANARY", str(canary))
    before = _digest(home)
    yield Host(home, canary)
    assert _digest(home) == before, "DRILL_HOME changed"
    assert not canary.exists(), "the canary file was written"


@pytest.fixture
def outcomes(monkeypatch: pytest.MonkeyPatch) -> list[sandbox.ChildOutcome]:
    """Every ChildOutcome of the test (the engine calls sandbox.run)."""
    seen: list[sandbox.ChildOutcome] = []
    real = sandbox.run

    def spy(job: sandbox.Job, limits: Limits, moot=None) -> sandbox.ChildOutcome:  # noqa: ANN001
        outcome = real(job, limits, moot)
        seen.append(outcome)
        return outcome

    monkeypatch.setattr(sandbox, "run", spy)
    return seen


def _stat(pid: int) -> tuple[int, int, int, int] | None:
    """(ppid, pgid, session, start ticks) of a live (or zombie) process."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    f = raw[raw.rfind(b")") + 2:].split()
    return int(f[1]), int(f[2]), int(f[3]), int(f[19])


def leftovers(child: int, since: int, wait: float = 3.0) -> list[int]:
    """Processes still around from this run: in the child's group or session, or
    our own children started since the run began, but the zygote the children are
    forked from (grader.sandbox.zygote) and the gradient plan server (grader.cases.gradient),
    the grader's own for as long as it lives. Waits for background reaping."""
    from grader.cases.gradient import SERVER

    me = os.getpid()
    zygote = sandbox.ZYGOTE.pid
    deadline = time.monotonic() + wait
    while True:
        left = []
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            st = _stat(int(name))
            if st is None:
                continue
            ppid, pgid, sid, start = st
            if int(name) in (zygote, SERVER.pid):
                continue
            if int(name) == child or pgid == child or sid == child or (ppid == me and start >= since):
                left.append(int(name))
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.02)


def grade(grader, name: str, outcomes: list, limits: Limits | None = None):
    since = int(time.clock_gettime(time.CLOCK_BOOTTIME) * TICKS)
    path = HOSTILE / f"{name}.py"
    report = grader.grade(DRILL, path.read_text(), str(path), seed=SEED, limits=limits or FAST)
    assert outcomes, "the sandbox did not run"
    outcome = outcomes[-1]
    assert leftovers(outcome.pid, since) == [], f"{name} left processes behind"
    return report, outcome


def messages(report) -> str:
    return " | ".join([report.message] + [c.message for c in report.cases])


# (fixture, verdict, words every person-facing message should contain)
CASES = [
    ("loop_function", "timeout", ["case small", "0.6 s"]),
    ("loop_module", "timeout", ["did not finish loading", "0.6 s"]),
    ("sleep", "timeout", ["case small", "0.6 s"]),
    ("read_stdin", "error", ["EOFError", "line 2"]),
    ("ignore_sigterm", "timeout", ["case small"]),
    ("broadcast_40gb", "memory", ["37.3 GiB", "line 2", "(N, N) = (100000, 100000)", "outer broadcast"]),
    ("fork_bomb", "error", ["PermissionError", "line 7"]),
    ("fork_setsid", "error", ["PermissionError", "line 6"]),
    ("subprocess_canary", "error", ["PermissionError", "line 6"]),
    ("write_drill_home", "error", ["PermissionError", "line 7"]),
    ("write_canary", "error", ["PermissionError", "line 5"]),
    ("write_fds", "error", ["result channel"]),
    ("monkeypatch_compare", "wrong", ["values differ"]),
    ("lying_subclass", "wrong", ["values differ"]),
    ("reference_from_memory", "wrong", ["values differ"]),
    ("answers_from_frames", "wrong", ["values differ"]),
    ("nan", "wrong", ["NaN"]),
    ("wrong_dtype", "wrong", ["float64"]),
    ("numpy_array", "wrong", ["numpy array"]),
    ("return_none", "wrong", ["None"]),
    ("generator", "wrong", ["expected a tensor"]),
    ("huge_result", "wrong", ["100000000"]),
    ("modify_input", "wrong", ["modified its input x"]),
    ("stdout_flood", "output", ["printed more than"]),
    ("stderr_flood", "output", ["printed more than"]),
    ("disk_filler", "output", ["to disk"]),
    ("many_files", "output", ["2000 files"]),
    ("sys_exit", "error", ["SystemExit", "line 5"]),
    ("os_exit", "error", ["ended the process"]),
    ("keyboard_interrupt", "error", ["KeyboardInterrupt", "line 2"]),
    ("system_exit_module", "error", ["SystemExit", "line 1", "while loading"]),
    ("recursion_segfault", "error", ["SIGSEGV", "case small"]),
    ("ctypes_segfault", "error", ["SIGSEGV", "case small"]),
    ("kill_parent", "error", ["PermissionError", "line 7"]),
    ("join_parent_group", "error", ["PermissionError", "line 6"]),
    ("network", "error", ["PermissionError", "line 5"]),
    ("syntax_error", "error", ["SyntaxError", "line 3"]),
    ("missing_function", "missing", ["add_one()"]),
    # issue 11: channel forgery, memory and disk the limits did not see, threads, in-place writes, odd results
    ("forge_refused", "error", ["result channel", "out of sequence"]),
    ("forge_done", "error", ["result channel", "out of sequence"]),
    ("forge_confined", "error", ["result channel", "out of sequence"]),
    ("forge_ill_typed", "error", ["result channel"]),
    ("forge_deep", "error", ["result channel", "nested too deeply"]),
    ("forge_json_bomb", "error", ["result channel", "nested too deeply"]),
    ("memfd", "error", ["PermissionError", "line 5"]),
    ("deleted_files", "output", ["64 MiB", "deleted files"]),
    ("deleted_mapped", "output", ["64 MiB", "deleted files"]),
    ("many_threads", "memory", ["threads at once", "more than the 64 allowed"]),
    ("modify_input_patched", "wrong", ["modified its input x"]),
    ("modify_input_set", "wrong", ["modified its input x"]),
    ("modify_input_at_load", "wrong", ["modified its input x"]),
    ("odd_sparse", "wrong", ["got a sparse_coo tensor of shape"]),
    ("odd_subclass", "pass", []),
    ("odd_object", "wrong", ["expected a tensor", "got a tuple"]),
]


@pytest.mark.parametrize("name,verdict,words", CASES, ids=[c[0] for c in CASES])
def test_hostile(toy_grader, host, outcomes, name, verdict, words):
    report, outcome = grade(toy_grader, name, outcomes, SHORT if verdict == "timeout" else FAST)
    text = messages(report)
    assert report.verdict == verdict, text
    for word in words:
        assert word in text, f"{word!r} missing from: {text}"
    assert "/grader/" not in text and "sandbox.py" not in text, "a grader frame leaked into the message"
    assert outcome.unconfined == {}, outcome.unconfined
    # the toy drill declares no scale: sizes, which its note says, and a failing real case leaves the
    # gradient case unrun, which its note says; nothing else may be noted
    assert [n for n in report.notes if "declares no scale: sizes" not in n
            and not n.startswith("gradient case: not checked — a real case fails")] == []


def test_reference_is_out_of_reach_through_the_gc(toy_grader, host, outcomes):
    # gc.unfreeze() + gc.get_objects() walks every object the parent froze: slow, so generous limits
    limits = dataclasses.replace(FAST, case_timeout=10.0, total_timeout=40.0)
    report, _ = grade(toy_grader, "reference_via_gc", outcomes, limits)
    assert report.verdict == "wrong", messages(report)
    assert "values differ" in messages(report)


def test_total_deadline_names_the_whole_submission(toy_grader, host, outcomes):
    limits = dataclasses.replace(FAST, case_timeout=1.5, total_timeout=2.0)
    report, _ = grade(toy_grader, "slow_cases", outcomes, limits)
    assert report.verdict == "timeout"
    assert "whole submission ran longer than 2 s" in messages(report), messages(report)


def test_os_system_runs_nothing(toy_grader, host, outcomes):
    # os.system cannot start a shell: it returns a failure status, the canary stays absent
    report, outcome = grade(toy_grader, "os_system_canary", outcomes)
    assert report.verdict == "pass"
    assert outcome.confined["processes"]


def test_correct_solution_passes_confined(toy_grader, host, outcomes):
    report, outcome = grade(toy_grader, "correct", outcomes)
    assert report.verdict == "pass", messages(report)
    assert set(outcome.confined) == set(confine.PIECES)


def test_growing_list_is_memory(toy_grader, host, outcomes):
    limits = dataclasses.replace(FAST, case_timeout=6.0, total_timeout=12.0, memory_bytes=256 * 2**20)
    report, _ = grade(toy_grader, "growing_list", outcomes, limits)
    assert report.verdict == "memory", messages(report)
    assert "line 4" in messages(report) and "256 MiB allowed" in messages(report)


def test_resident_watchdog_stops_growth(toy_grader, host, outcomes):
    limits = dataclasses.replace(FAST, case_timeout=6.0, total_timeout=12.0, memory_bytes=8 * 2**30,
                                 rss_bytes=160 * 2**20, rss_poll=0.01)
    report, outcome = grade(toy_grader, "resident_growth", outcomes, limits)
    assert outcome.memory_killed
    assert report.verdict == "memory", messages(report)
    assert "resident memory" in messages(report) and "case small" in messages(report)


def test_unconfined_fork_bomb_is_killed_with_its_group(toy_grader, host, outcomes):
    # the outer layers alone (no seccomp): the process-group kill still leaves nothing behind
    limits = dataclasses.replace(SHORT, confine=False)
    report, outcome = grade(toy_grader, "fork_bomb", outcomes, limits)
    assert report.verdict in ("pass", "timeout")  # 16 forks of a torch-sized process may take a while
    assert "processes" in outcome.unconfined
    assert any("not enforced" in n for n in report.notes)


def test_unconfined_setsid_orphan_is_reaped(toy_grader, host, outcomes):
    # fork + setsid escapes the process group; as a subreaper we still find and kill it
    limits = dataclasses.replace(FAST, confine=False)
    report, outcome = grade(toy_grader, "fork_setsid", outcomes, limits)
    assert report.verdict == "pass"
    assert outcome.orphans >= 1


def test_required_confinement_refuses_when_missing(toy_grader, host, outcomes):
    limits = dataclasses.replace(FAST, confine=False, require_confinement=True)
    report, outcome = grade(toy_grader, "write_canary", outcomes, limits)
    assert outcome.refused
    assert report.verdict == "internal"
    assert "confined" in report.message


def test_child_reports_each_confinement_piece(toy_grader, host, outcomes):
    grade(toy_grader, "correct", outcomes)
    outcome = outcomes[-1]
    assert set(outcome.confined) | set(outcome.unconfined) == set(confine.PIECES)


def test_probe_says_what_is_enforced():
    features = {f.name: f for f in confine.probe()}
    assert set(confine.PIECES) <= set(features)
    for piece in confine.PIECES:
        assert features[piece].detail
    if confine.landlock_abi() >= 1 and confine.seccomp_available():
        assert all(features[p].enforced for p in confine.PIECES), features


def test_doctor_prints_what_is_enforced():
    import json

    from typer.testing import CliRunner

    from trainer.cli import _register
    from trainer.cli.app import app

    _register()
    result = CliRunner().invoke(app, ["doctor", "--json"])
    data = json.loads(result.stdout)
    assert set(data["enforced"]) | set(data["not_enforced"]) == set(confine.PIECES)
    assert result.exit_code == (0 if not data["not_enforced"] and data["orphans_reaped"] else 1)
    text = CliRunner().invoke(app, ["doctor"], env={"NO_COLOR": "1"}).stdout
    for piece in confine.PIECES:
        assert piece in text


def test_standby_child_is_used_and_confined(toy_grader, host, outcomes):
    grade(toy_grader, "correct", outcomes)
    assert sandbox.prefork()
    report, outcome = grade(toy_grader, "write_canary", outcomes)
    assert outcome.from_standby
    assert report.verdict == "error" and "PermissionError" in messages(report)
    assert set(outcome.confined) == set(confine.PIECES)
    assert sandbox.prefork()
    report, outcome = grade(toy_grader, "loop_function", outcomes)
    assert outcome.from_standby and report.verdict == "timeout" and "case small" in messages(report)


def test_standby_child_is_discarded_when_the_job_differs(toy_grader, host, outcomes):
    grade(toy_grader, "correct", outcomes)
    since = int(time.clock_gettime(time.CLOCK_BOOTTIME) * TICKS)
    assert sandbox.prefork()
    waiting = list(sandbox.STANDBY._waiting)
    assert waiting
    report, outcome = grade(toy_grader, "correct", outcomes, dataclasses.replace(FAST, case_timeout=1.5))
    assert not outcome.from_standby and report.verdict == "pass"
    for w in waiting:
        assert leftovers(w.child.pid, since) == []


def test_other_processes_cannot_be_reniced_or_pinned(toy_grader, host, outcomes):
    before = os.getpriority(os.PRIO_PROCESS, 0), os.sched_getaffinity(0)
    report, _ = grade(toy_grader, "other_process_tricks", outcomes)
    assert report.verdict == "pass", messages(report)
    assert (os.getpriority(os.PRIO_PROCESS, 0), os.sched_getaffinity(0)) == before


def test_sneaky_write_routes_all_fail(toy_grader, host, outcomes):
    # hard link, symlink, rename, truncate, chmod, utime, unlink, mkfifo, mknod, /proc/<parent>/fd, /proc/<parent>/mem
    report, _ = grade(toy_grader, "sneaky_writes", outcomes)
    assert report.verdict == "pass", messages(report)
    stat = (host.home / "progress.db").stat()
    assert stat.st_mode & 0o777 and stat.st_mtime > 0 and stat.st_nlink == 1
