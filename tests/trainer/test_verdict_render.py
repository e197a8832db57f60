"""The one renderer (trainer/text/verdict.py) and the messages it shows: nothing misleads,
nothing from a solution reaches the terminal raw."""
from __future__ import annotations

import itertools

import torch

from grader.dims import confirmed_labels, explain_shape
from grader.report import CaseKind, CaseResult, Report, TrapMatch, Verdict
from trainer.text.verdict import ansi, plain, render


def _report(**kw) -> Report:
    cases = kw.pop("cases", [
        CaseResult("a", "f", "wrong", "values differ", dims={"B": 2}),
        CaseResult("b", "f", "error", "RuntimeError: boom (line 3: x)", dims={"B": 3}),
        CaseResult("c", "f", "wrong", "values differ"),
        CaseResult("d", "f", "pass"),
    ])
    return Report("toy", kw.pop("verdict", "error"), cases, 0.5, seed=1, **kw)


def test_verdict_is_a_string_with_severity_and_label():
    assert Verdict("wrong") == "wrong" and f"{Verdict.WRONG}" == "wrong" and str(Verdict.PASS) == "pass"
    assert Verdict.INTERNAL.severity < Verdict.ERROR.severity < Verdict.PASS.severity
    assert Verdict.MEMORY.label == "MEMORY" and Verdict.of("nonsense") == Verdict.INTERNAL


def test_report_round_trips_through_its_dict():
    report = _report(trap=TrapMatch("t", "m", "why it is wrong"), output="hi", notes=["n"])
    back = Report.from_dict(report.to_dict(wire=True))
    assert back.to_dict(wire=True) == report.to_dict(wire=True)
    assert back.trap.why == "why it is wrong" and back.shown_case.name == "b"
    assert "why" not in report.to_dict()["trap"]  # docs/CLI.md's JSON keeps id and message only


def test_from_dict_never_raises_on_garbage():
    assert Report.from_dict("nope").verdict == "internal"
    odd = Report.from_dict({"verdict": "pass", "cases": [1, {"verdict": 7}], "seed": "x", "seconds": "?"})
    assert odd.verdict == "pass" and odd.seed is None and odd.cases[0].verdict == "internal"


def test_the_shown_case_is_the_most_severe_and_also_failing_lists_the_others_once():
    text = plain(render(_report(), width=100))
    assert text.index("case b") < text.index("also failing")
    assert "also failing: a, c\n" in text and text.count("case b") == 1


def test_also_failing_never_repeats_the_case_just_shown():
    """"also failing: pad-id-zero" under case pad-id-zero: the same case as a second entry is not another
    failure; the same name for another function is told with its function."""
    cases = [CaseResult("pad-id-zero", "f", "wrong", "values differ"),
             CaseResult("pad-id-zero", "f", "wrong", "values differ"),
             CaseResult("pad-id-zero", "g", "wrong", "values differ"),
             CaseResult("small", "f", "wrong", "values differ")]
    text = plain(render(_report(cases=cases, verdict="wrong"), width=100))
    assert "also failing: pad-id-zero (g()), small\n" in text


def test_a_check_that_ran_for_one_function_and_not_another_does_not_say_pass_alone():
    cases = [CaseResult("a", "f", "pass"), CaseResult("device", "f", "pass", kind=CaseKind.DEVICE)]
    report = Report("toy", "pass", cases, 0.5, seed=1,
                    not_checked=[{"check": "device", "function": "g", "why": "it raised on fake tensors"}],
                    notes=["device case: not checked for g(): it raised on fake tensors"])
    text = plain(render(report, width=100))
    assert "device: pass, part not checked" in text and "device: pass " not in text.split("\n")[0] + " "
    assert "device case: not checked for g()" in text


def test_escape_sequences_from_a_solution_are_made_visible():
    evil = "\x1b[2J\x1b[1;1H\x1b[32mPASS\x1b[0m"
    report = _report(output=evil + "\nmore", message="", cases=[CaseResult("a\x1b[31m", "f", "wrong", evil)])
    for text in (plain(render(report, width=100)), plain(render(report, "compact", width=100)),
                 ansi(render(report, width=100), color=False)):
        assert "\x1b" not in text and "\\x1b[2J" in text


def test_colour_codes_are_ours_only():
    report = _report(output="\x1b[32mPASS")
    coloured = ansi(render(report, width=100), color=True)
    assert "\x1b[32mPASS" not in coloured and "\\x1b[32mPASS" in coloured


def test_the_trap_explanation_is_wrapped_once_to_the_width():
    why = "A long explanation " * 12
    report = _report(trap=TrapMatch("some-trap", "matches a thing", why + "\nsecond line"))
    for width in (40, 60, 100):
        lines = plain(render(report, width=width)).splitlines()
        assert all(len(line) <= width for line in lines[1:]), (width, lines)  # the headline is one line
    assert "second line" in " ".join(plain(render(report, width=60)).split())


def test_a_syntax_error_stands_alone():
    cases = [CaseResult(n, "f", "error", "SyntaxError: invalid syntax at line 1: def f(:") for n in "abcdefgh"]
    report = _report(cases=cases, message="SyntaxError: invalid syntax at line 1: def f(:", alone=True)
    text = plain(render(report, width=100))
    assert "also failing" not in text and "case " not in text and "8 cases" not in text
    assert text.count("invalid syntax") == 1


def test_inputs_are_shown_for_a_case_without_tensors():
    cases = [CaseResult("zero", "broadcast_shape", "wrong", "expected (0,), got (1,)", inputs="a=(0,), b=(1,)")]
    assert "inputs: a=(0,), b=(1,)" in plain(render(_report(cases=cases), width=100))


def test_shape_sentences_never_say_a_number_equals_itself():
    text = explain_shape(("B", "T", "d"), (2, 5, 24), (2, 5, 8), {"B": 2, "T": 5, "d": 24})
    assert "8 = 8" not in text and "but is 8" in text
    text = explain_shape(("N",), (6,), (6, 24), {"N": 6})
    assert "24 = 24" not in text


def test_a_product_is_named_only_when_every_case_agrees():
    # unpatchify: sqrt(N) * P happened to equal B * P on one case
    one = explain_shape(("B", "C", "H", "W"), (3, 4, 10, 40), (3, 4, 20, 20),
                        {"B": 4, "C": 4, "H": 10, "W": 40, "P": 5})
    assert "B*P" not in one and "C*P" not in one
    members = [((8, 5), {"B": 2, "H": 4, "T": 5}), ((21, 6), {"B": 3, "H": 7, "T": 6})]
    assert confirmed_labels(members) == ["B*H", "T"]
    chance = [((8, 5), {"B": 2, "H": 4, "T": 5}), ((9, 6), {"B": 3, "H": 7, "T": 6})]
    assert confirmed_labels(chance) == [None, "T"]


def test_no_relative_error_against_an_expected_zero_and_inf_is_signed():
    from grader.judge.compare import _compare_float
    from grader.spec import Tolerance

    class _Call:
        dtype = torch.float32

        class function:  # noqa: N801 - a stand-in namespace
            exact = False

    tol = {"float32": Tolerance(1e-5, 1e-4)}
    e = torch.tensor([0.0, 0.0, 1.0])
    g = torch.tensor([0.5, 0.0, 1.0])
    msg = _compare_float(e, g, _Call, tol, [3], [3]).message
    assert "rel error" not in msg and "expected value is 0" in msg
    e = torch.tensor([float("-inf"), 1.0])
    g = torch.tensor([0.0, 1.0])
    msg = _compare_float(e, g, _Call, tol, [2], [2]).message
    assert "-inf was expected" in msg


def test_a_failure_the_trap_does_not_explain_is_shown_too():
    cases = [CaseResult("small", "f", "wrong", "values differ", trap="t"),
             CaseResult("device", "f", "error", "with its inputs on a GPU (cuda:0) it mixes devices",
                        kind=CaseKind.DEVICE),
             CaseResult("other", "f", "wrong", "values differ", trap="t")]
    report = _report(cases=cases, trap=TrapMatch("t", "matches the thing", "why"))
    text = plain(render(report, width=100))
    assert report.shown_case.name == "small"  # the trap's own case comes first
    assert "case small" in text and "case device" in text and "mixes devices" in text
    assert text.index("case small") < text.index("trap: t") < text.index("case device")
    assert "also failing: other\n" in text


def test_the_case_count_is_the_specs_cases_whether_or_not_the_device_check_ran():
    """masked-mean said "1/9 cases" on a fail (the device check could not run: the code raised
    on fake tensors too) and "10/10 cases" on a pass (it ran and passed): the count is the
    spec's cases on every verdict, and the device check is told apart, run or not."""
    spec_cases = [CaseResult(f"c{i}", "f", "pass", id=f"c{i}@0000000{i}") for i in range(9)]
    failing = [CaseResult(c.name, "f", "error" if i else "pass", "RuntimeError: boom (line 3)", id=c.id)
               for i, c in enumerate(spec_cases)]
    fail = Report("masked-mean", "error", failing, 0.5, seed=1,
                  notes=["device case not checked for f(): on fake CUDA tensors at B=8 it raised RuntimeError: boom"])
    passed = Report("masked-mean", "pass", spec_cases + [CaseResult("device", "f", "pass", kind=CaseKind.DEVICE)], 0.5,
                    seed=1)
    fail_text, pass_text = plain(render(fail, width=100)), plain(render(passed, width=100))
    assert "1/9 cases passed · device: not checked" in fail_text
    assert "device case not checked for f()" in fail_text  # why, under the verdict
    assert "9/9 cases · device: pass" in pass_text and "10/10" not in pass_text
    mixed = Report("masked-mean", "error",
                   spec_cases + [CaseResult("device", "f", "error", "mixes devices", kind=CaseKind.DEVICE)], 0.5)
    assert "9/9 cases passed · device: error" in plain(render(mixed, "compact", width=100))


def test_a_trap_with_a_separate_reason_says_so_under_the_trap_line():
    cases = [CaseResult("a", "f", "wrong", "values differ", trap="no-clip"),
             CaseResult("integer-wh", "f", "wrong", "dtype: expected float32, got int64")]
    trap = TrapMatch("no-clip", "matches no clip", "why", explains=("a",),
                     others=(("integer-wh", "dtype int64, expected float32"),))
    for full in (True, False):
        text = plain(render(_report(cases=cases, trap=trap), width=120, density="full" if full else "compact"))
        note = "matches no-clip on 1 of 2 failing cases; integer-wh fails for another reason: dtype int64, expected float32"
        assert note in text and text.index("trap: no-clip") < text.index(note)


def test_a_partial_match_is_said_as_partial_in_the_model_the_renderer_and_the_json():
    """A second mistake must not hide the first (grader.report.PartialMatch): the same words in
    the report's note, the text verdict and `check --json`, and never as a named trap."""
    from grader.report import PartialMatch

    part = PartialMatch("unclamped-count", "matches dividing by an unclamped count", "0 / 0 is NaN",
                        explains=("a", "c"), unexplained=("b",))
    report = _report(partial_trap=part)
    note = "matches unclamped-count on 2 of 3 failing cases; b fails another way, which unclamped-count does not explain"
    assert part.note == note
    data = report.to_dict()
    assert data["trap"] is None
    assert data["partial_trap"] == {"id": "unclamped-count", "message": "matches dividing by an unclamped count",
                                    "explains": ["a", "c"], "unexplained": ["b"], "note": note}
    assert "why" not in data["partial_trap"]
    assert Report.from_dict(report.to_dict(wire=True)).partial_trap == part
    for density in ("full", "compact"):
        text = " ".join(plain(render(report, density, width=100)).split())
        assert "partly: " + note in text and "not named as the cause" in text
        assert "trap: unclamped-count" not in text
    assert "partial_trap" not in _report().to_dict()  # only added where there is one (docs/CLI.md)
    many = PartialMatch("t", "m", explains=tuple("abcdefg"), unexplained=("h", "i", "j", "k", "l"))
    assert many.note == "matches t on 7 of 12 failing cases; h, i, j and 2 more fail another way, which t does not explain"
    assert PartialMatch.from_dict({"id": "t", "explains": "x", "unexplained": 3}) == PartialMatch("t", "")
    assert PartialMatch.from_dict(["t"]) is None


def test_a_long_headline_folds_between_its_pieces():
    """drill check's headline names the file: wider than the terminal, it breaks between its pieces (the next
    line indented, "· device: error" kept whole), never inside a word or the path; when it fits it is one line."""
    path = "drills/02-attention/solutions/mha-padding/bad_device_cpu_bias.py"
    report = _report(cases=[CaseResult("a", "f", "pass"), CaseResult("dev", "f", "error", "mixes devices",
                                                                         kind=CaseKind.DEVICE)])
    wide = plain(render(report, width=200, path=path)).splitlines()[0]
    pieces = ["ERROR", "toy", path, "1/1 cases passed", "device: error", "0.50 s", "seed 1"]
    assert all(p in wide for p in pieces)
    for width in (100, 60):
        lines = plain(render(report, width=width, path=path)).splitlines()
        head = list(itertools.takewhile(lambda line: not line.startswith(("  case", "    ")), lines))
        assert " ".join(" ".join(head).split()) == " ".join(wide.split())
        assert all(len(line) <= width for line in head if path not in line)
        assert any(path in line for line in head)  # whole, on one line
    assert len(head) > 1


def test_a_case_line_too_wide_puts_its_sizes_on_a_line_of_their_own():
    dims = {"B": 8, "T": 1024, "S": 2048, "H": 32, "dh": 128, "d": 4096}
    report = _report(cases=[CaseResult("device", "multi_head_attention", "error", "mixes devices", dims=dims,
                                       kind=CaseKind.DEVICE)])
    sizes = "B=8 T=1024 S=2048 H=32 dh=128 d=4096"
    wide = plain(render(report, width=100)).splitlines()
    assert any(line.startswith("  case device") and line.endswith(sizes) for line in wide)  # fits: one line
    narrow = plain(render(report, width=60)).splitlines()
    at = next(i for i, line in enumerate(narrow) if line.startswith("  case device"))
    assert narrow[at].endswith("· error") and narrow[at + 1].strip() == sizes
    assert all(len(line) <= 60 for line in narrow[at:])
