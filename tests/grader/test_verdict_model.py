"""The verdict model's order of kinds (the real cases lead) and the one table of how a child
ended (grader/report.py, grader/judge/endings.py). Torch-free, no sandbox."""
from __future__ import annotations

from dataclasses import replace

import pytest

from grader.judge import endings
from grader.judge.endings import Ending
from grader.report import CaseKind, CaseResult, Report, Smallest, Verdict, decide
from grader.sandbox.limits import ChildOutcome, Limits


def _case(name: str, verdict: str, kind: CaseKind = CaseKind.CASE) -> CaseResult:
    return CaseResult(name, "f", verdict, f"{name}: {verdict}", kind=kind)


def test_a_failing_real_case_leads_and_the_device_lesson_follows() -> None:
    cases = [_case("a", "wrong"), _case("b", "pass"), _case("device", "error", CaseKind.DEVICE),
             _case("scale", "memory", CaseKind.SCALE)]
    report = Report("d", decide(cases), cases)
    assert report.verdict == Verdict.WRONG  # not error, not memory: every real case would have to pass
    assert report.shown_case is cases[0] and report.deciding is cases[0]
    assert report.lessons == [cases[2], cases[3]]
    assert report.shrink_target is cases[0]


def test_the_checks_decide_only_when_every_real_case_passes() -> None:
    cases = [_case("a", "pass"), _case("device", "wrong", CaseKind.DEVICE), _case("scale", "memory", CaseKind.SCALE)]
    report = Report("d", decide(cases), cases)
    assert report.verdict == Verdict.MEMORY and report.shown_case is cases[2] and report.lessons == []
    assert report.shrink_target is None  # a check is not a case to shrink
    assert decide([_case("a", "pass"), _case("device", "pass", CaseKind.DEVICE)]) == Verdict.PASS
    assert decide([]) == Verdict.INTERNAL


def test_a_run_level_entry_leads_with_the_real_cases() -> None:
    cases = [_case("a", "wrong"), _case("(run)", "banned", CaseKind.RUN), _case("device", "error", CaseKind.DEVICE)]
    assert decide(cases) == Verdict.BANNED
    assert Report("d", decide(cases), cases).shown_case is cases[1]


def test_kinds_travel_in_the_json_and_unknown_ones_are_real_cases() -> None:
    case = _case("device", "error", CaseKind.DEVICE)
    assert case.to_dict()["kind"] == "device"
    assert CaseResult.from_dict(case.to_dict()).kind == CaseKind.DEVICE
    assert CaseResult.from_dict({"name": "x", "verdict": "pass", "kind": "odd"}).kind == CaseKind.CASE
    found = Smallest("a", "f", {"B": 2, "T": 3}, ["B"], {"T": {"B": 2, "T": 1}})
    report = Report("d", "wrong", [_case("a", "wrong")], smallest=found)
    back = Report.from_dict(report.to_dict())
    assert back.smallest == replace(found, seconds=0.0)
    assert report.to_dict()["smallest"]["sizes"] == {"B": 2, "T": 3} and report.to_dict()["smallest"]["free"] == ["B"]
    assert Smallest.from_dict({"case": "a", "sizes": {"B": "two"}}) is None


LIMITS = Limits(case_timeout=5.0, total_timeout=30.0)


@pytest.mark.parametrize(("outcome", "here", "ending", "verdict", "words"), [
    (ChildOutcome(timeout_call=3, timeout_seconds=5.0), True, Ending.TIMEOUT, "timeout", "case c ran longer than 5 s"),
    (ChildOutcome(timeout_call=3, timeout_seconds=30.0), True, Ending.TIMEOUT_TOTAL, "timeout", "longer than 30 s"),
    (ChildOutcome(timeout_call=-1), False, Ending.TIMEOUT_LOADING, "timeout", "did not finish loading within 5 s"),
    (ChildOutcome(timeout_call=1), False, Ending.STOPPED_EARLIER, "timeout", "stopped at an earlier case"),
    (ChildOutcome(output_overflow=True), True, Ending.OUTPUT, "output", "printed more than"),
    (ChildOutcome(disk_overflow=True), True, Ending.DISK, "output", "to disk"),
    (ChildOutcome(banned="torch.einsum"), True, Ending.BANNED, "banned", "called torch.einsum"),
    (ChildOutcome(memory_killed=True, memory_peak=2**31), True, Ending.MEMORY, "memory", "used 2.0 GiB"),
    (ChildOutcome(memory_killed=True, memory_peak=2**31), False, Ending.MEMORY_EARLIER, "memory", "not run: "),
    (ChildOutcome(threads_killed=True, threads_peak=40), True, Ending.THREADS, "memory", "ran 40 threads"),
    (ChildOutcome(protocol_error="a forged frame"), True, Ending.CHANNEL, "error", "(a forged frame)"),
    (ChildOutcome(signal=24), True, Ending.CPU_LIMIT, "timeout", "SIGXCPU"),
    (ChildOutcome(signal=11), True, Ending.CRASHED, "error", "SIGSEGV (segmentation fault) while running"),
    (ChildOutcome(signal=11), False, Ending.CRASHED_EARLIER, "error", "this case did not run"),
    (ChildOutcome(exit_status=3), True, Ending.EXITED, "error", "exit status 3"),
    (ChildOutcome(finished=True), True, Ending.NO_RESULT, "error", "no result came back"),
])
def test_each_way_a_child_ends_is_one_ending_with_one_verdict_and_message(outcome, here, ending, verdict, words) -> None:
    assert endings.ending_of(3, outcome, LIMITS, here) == ending
    got, message = endings.told(ending, outcome, LIMITS, case="c", running="while running case c")
    assert got == verdict and words in message and "{" not in message


def test_every_ending_has_its_row_and_the_run_level_ones_are_found_even_when_every_call_answered() -> None:
    assert set(endings.TABLE) == set(Ending)
    outcome = ChildOutcome(finished=True, threads_killed=True, disk_overflow=True, protocol_error="x")
    assert endings.run_endings(outcome) == [Ending.THREADS, Ending.DISK, Ending.CHANNEL]
    assert endings.run_endings(ChildOutcome(finished=True)) == []


@pytest.mark.slow
def test_wrong_everywhere_and_a_cpu_tensor_is_wrong_with_the_real_case_first_and_the_device_lesson_after(grader):
    from trainer.text.verdict import plain, render

    source = "import torch\n\n\ndef masked_mean(x, mask):\n    x.zero_()\n" \
             "    return torch.zeros(x.shape[0], x.shape[2])\n"
    report = grader.grade("masked-mean", source, seed=5)
    assert report.verdict == "wrong"
    assert report.shown_case.kind == CaseKind.CASE and "modified its input x in place" in report.shown_case.message
    assert [c.kind for c in report.lessons] == [CaseKind.DEVICE] and report.lessons[0].verdict == "error"
    text = plain(render(report, width=120))
    assert text.startswith("WRONG") and text.index("case fp32-right-padding") < text.index("case device")
