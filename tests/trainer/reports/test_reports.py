"""`drill report`: the pure computations with exact values, every format on a seeded
history under a fixed clock, and the empty history."""
from __future__ import annotations

from tests.paths import REPO

import json
import stat
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone

import pytest
from typer.testing import CliRunner

from trainer import reports as r
from trainer.reports.charts import bar, heat_grid, sparkline
from trainer.store import NewAttempt, database_exists, open_store

UTC = timezone.utc
NOW = datetime(2026, 12, 1, 18, 0, tzinfo=UTC)  # a Tuesday
TODAY = NOW.date()


@dataclass(frozen=True)
class A:  # the fields of store.AttemptRecord the reports read
    drill: str
    started_at: datetime
    seconds: float
    verdict: str = "pass"
    first_try: bool = True
    revealed: bool = False
    traps: tuple[str, ...] = ()
    variant: dict = field(default_factory=dict)


def at(days_ago: int, hour: int = 9) -> datetime:
    return datetime.combine(TODAY - timedelta(days=days_ago), datetime.min.time(), UTC).replace(hour=hour)


DRILLS = [
    r.DrillInfo("a1", "Alpha one", "alpha", 100.0, (("t-x", "matches x"), ("t-y", "matches y"))),
    r.DrillInfo("a2", "Alpha two", "alpha", 200.0, (("t-x", "matches x too"),)),
    r.DrillInfo("b1", "Beta one", "beta", 300.0, ()),
]
CAT = {d.id: d for d in DRILLS}


# ----------------------------------------------------------------- pure


def test_heat_levels_are_quarters_of_the_busiest_day():
    assert [r.heat_level(n, 4) for n in range(5)] == [0, 1, 2, 3, 4]
    assert [r.heat_level(n, 10) for n in (1, 2, 3, 5, 7, 8, 10)] == [1, 1, 2, 2, 3, 4, 4]
    assert r.heat_level(3, 0) == 0


def test_heatmap_is_monday_first_weeks_with_exact_cells():
    counts = {date(2026, 11, 25): 1, date(2026, 11, 30): 2, date(2026, 12, 1): 4, date(2026, 11, 1): 9}
    hm = r.heatmap(counts, date(2026, 11, 24), date(2026, 12, 1))
    assert len(hm.weeks) == 2 and all(len(w) == 7 for w in hm.weeks)
    assert hm.weeks[0][0] is None  # Monday 23 Nov is before the first day
    assert hm.weeks[0][1] == r.HeatCell(date(2026, 11, 24), 0, 0)
    assert hm.weeks[0][2] == r.HeatCell(date(2026, 11, 25), 1, 1)
    assert hm.weeks[1][0] == r.HeatCell(date(2026, 11, 30), 2, 2)
    assert hm.weeks[1][1] == r.HeatCell(date(2026, 12, 1), 4, 4)
    assert hm.weeks[1][2:] == (None,) * 5
    assert (hm.max_count, hm.active_days) == (4, 3)  # 1 Nov is outside the range


def test_heatmap_range_default_and_since():
    assert r.heatmap_range(TODAY, None, weeks=2) == (TODAY - timedelta(days=13), TODAY)
    assert r.heatmap_range(TODAY, date(2026, 11, 20)) == (date(2026, 11, 20), TODAY)
    assert r.heatmap_range(TODAY, date(2020, 1, 1))[0] == TODAY - timedelta(days=370)


def test_heat_grid_text():
    hm = r.heatmap({date(2026, 11, 30): 1, date(2026, 12, 1): 2}, date(2026, 11, 30), date(2026, 12, 1))
    lines = heat_grid(hm)
    assert lines[1] == "Mon ▒" and lines[2] == "Tue █" and lines[3] == "Wed  "
    assert lines[-1] == "    less · ░ ▒ ▓ █ more"


def test_text_heatmap_keeps_the_latest_weeks_that_fit():
    from trainer.reports.text import fit_weeks

    hm = r.heatmap({TODAY: 1}, TODAY - timedelta(days=370), TODAY)
    assert len(hm.weeks) == 54
    fitted = fit_weeks(hm, 80)
    assert len(fitted.weeks) == 37 and fitted.weeks[-1] == hm.weeks[-1]
    assert fit_weeks(hm, 200) is hm


def test_streak_counts_back_from_today_or_yesterday():
    days = {TODAY, TODAY - timedelta(days=1), TODAY - timedelta(days=2), TODAY - timedelta(days=4)}
    assert r.streak(days, TODAY) == 3
    assert r.streak(days - {TODAY}, TODAY) == 2
    assert r.streak({TODAY - timedelta(days=2)}, TODAY) == 0
    assert r.streak(set(), TODAY) == 0


def test_trend_keeps_clean_passes_in_time_order():
    attempts = [A("a1", at(5), 150), A("a1", at(3), 90, revealed=True), A("a1", at(4), 120, "wrong"),
                A("a1", at(2), 110), A("a1", at(1), 80), A("b1", at(1), 400), A("gone", at(1), 5)]
    trends = r.trends(attempts, CAT)
    assert [t.drill for t in trends] == ["a1", "b1", "gone"]
    a1 = trends[0]
    assert [p.seconds for p in a1.points] == [150, 110, 80]
    assert (a1.best, a1.latest, a1.target, a1.on_target, a1.passes) == (80, 80, 100.0, True, 3)
    assert trends[1].on_target is False and trends[2].target is None and trends[2].on_target is None
    assert [p.seconds for p in r.trends(attempts, CAT, limit=2)[0].points] == [110, 80]


def test_due_per_day_counts_overdue_today_and_stops_at_14_days():
    dues = [NOW - timedelta(days=2), NOW + timedelta(hours=1), NOW + timedelta(days=1),
            NOW + timedelta(days=13), NOW + timedelta(days=14)]
    days = r.due_per_day(dues, TODAY, UTC)
    assert len(days) == 14 and days[0].day == TODAY and days[13].day == TODAY + timedelta(days=13)
    assert [d.count for d in days] == [2, 1] + [0] * 11 + [1]


def test_mastery_per_topic_counts_unpractised_drills_as_zero():
    topics = r.mastery({"a1": 0.9, "a2": 0.5}, CAT)
    assert topics[0] == r.TopicMastery("alpha", pytest.approx(0.7), pytest.approx(0.7), 2, 2)
    assert topics[1] == r.TopicMastery("beta", 0.0, None, 0, 1)
    topics = r.mastery({"a1": 0.9}, CAT)
    assert topics[0].mastery == pytest.approx(0.45) and topics[0].recall == pytest.approx(0.9)


def test_graded_files_are_left_out_of_the_trend():
    @dataclass(frozen=True)
    class M(A):
        mode: str = "solve"
        target_seconds: float | None = 100.0

    attempts = [M("a1", at(2), 80), M("a1", at(1), 0.3, mode="check", target_seconds=None),
                M("a1", at(1, 10), 0.2, mode="team", target_seconds=None), M("a1", at(0), 70, mode="team")]
    assert [p.seconds for p in r.trends(attempts, CAT)[0].points] == [80, 70]
    assert r.untimed_passes(attempts) == 2
    assert r.untimed_note(2).startswith("2 passes from graded files")
    assert r.weakest(attempts, {"a1": 1.0}, CAT)[0].best == 70


def test_first_try_mistakes_and_weakest_exact():
    attempts = [A("a1", at(3), 90, "wrong", traps=("t-x",)), A("a1", at(2), 95, first_try=False),
                A("a2", at(2), 250, "wrong", traps=("t-x",)), A("a2", at(1), 150),
                A("b1", at(1), 1, "internal"), A("a1", at(1), 50, "pass", revealed=True)]
    ft = r.first_try(attempts)
    assert (ft.attempts, ft.passes, ft.rate) == (4, 1, 0.25)
    [m] = r.mistakes(attempts, CAT)
    assert (m.trap, m.count, m.message, m.made_in, m.practise) == ("t-x", 2, "matches x", ("a1", "a2"), ("a1", "a2"))
    assert r.weakness_score(0.5, 4, 0, None, 100) == 0.5 * 0.5 + 0.3 + 0.2  # never passed: slowest
    assert r.weakness_score(0.5, 4, 1, None, 100) == 0.5 * 0.5 + 0.3 * 0.75  # passed, but untimed
    assert r.weakness_score(1.0, 2, 2, 150, 100) == 0.1
    weak = r.weakest(attempts, {"a1": 0.9, "a2": 0.6}, CAT)
    assert [(w.drill, w.score) for w in weak] == [("a2", 0.35), ("a1", 0.25)]  # b1: only an internal verdict
    assert (weak[1].attempts, weak[1].passes, weak[1].best) == (3, 1, 95) and weak[1].command == "drill solve a1"


def test_a_drill_never_passed_shows_not_yet_passed_with_its_real_figures():
    """FSRS's recall right after a failed review is high; the report must not show it as
    100% for a drill that was never passed."""
    from trainer.reports.html import render_html
    from trainer.reports.md import render_md
    from trainer.reports.text import render_text

    attempts = [A("b1", at(2), 300, "wrong"), A("b1", at(1), 250, "wrong", first_try=False),
                A("b1", at(0), 200, "wrong"), A("a1", at(0), 90)]
    weak = r.weakest(attempts, {"b1": 1.0, "a1": 0.9}, CAT)
    b1 = next(w for w in weak if w.drill == "b1")
    assert (b1.recall, b1.passes, b1.attempts, b1.first_tries, b1.first_passes) == (None, 0, 3, 2, 0)
    assert not b1.passed and r.best_text(b1) == "not yet passed" and r.first_try_text(b1) == "0/2"
    assert b1.score == r.weakness_score(0.0, 3, 0, None, 300.0) and weak[0].drill == "b1"
    report = r.build_report(attempts, [], {"b1": 1.0, "a1": 0.9}, DRILLS, NOW, UTC)
    text = render_text(report, width=120)
    [line] = [ln for ln in text.splitlines() if ln.lstrip().startswith("b1 ")]
    assert "not yet passed" in line and "0/2" in line and "0/3" in line and "100%" not in line
    narrow = render_text(report, width=80)  # the weakest drills still fit: topic and practise make room
    [line] = [ln for ln in narrow.splitlines() if ln.lstrip().startswith("b1 ")]
    assert "not yet passed" in line and "0/2" in line and "…" not in narrow
    assert max(len(ln) for ln in narrow.splitlines()) <= 80
    for page in (render_md(report), render_html(report)):
        assert "not yet passed" in page
    assert r.to_dict(report)["weakest"][0]["recall"] is None


def test_counts_are_pluralised_and_markdown_keeps_shapes_readable():
    from trainer.reports.md import render_md
    from trainer.reports.text import render_text

    cat = [r.DrillInfo("a1", "Alpha one", "alpha", 100.0, (("t-x", "x is (B, T) not (B, 1)"),))]
    report = r.build_report([A("a1", at(0), 90, "wrong", traps=("t-x",))], [], {}, cat, NOW, UTC)
    text, md = render_text(report, width=100), render_md(report)
    assert "1 active day," in text and "busiest 1 attempt" in text and "active days" not in text
    assert "streak 1 day " in text and "(1 active day)" in md and "**Streak:** 1 day\n" in md
    assert "x is (B, T) not (B, 1)" in md and "\\(" not in md  # no backslash before a parenthesis


def test_the_text_report_uses_one_table_style():
    from trainer.reports.text import render_text

    attempts = [A("a1", at(1), 90, "wrong", traps=("t-x",)), A("a1", at(0), 80)]
    sessions = [S("mock", at(0), {"score": 70, "passed": 1, "total": 1, "minutes": 30})]
    text = render_text(r.build_report(attempts, [at(-1)], {"a1": 0.9}, DRILLS, NOW, UTC, sessions=sessions),
                       width=100)
    for title in ("Mastery per topic", "Reviews due", "Time to solve", "Most frequent mistakes", "Weakest drills",
                  "Mock interview scores"):
        assert title in text
    assert not set(text) & set("┃│┏┡┗╇━┌└"), "a boxed table: every table is the simple-head style"
    assert text.count("─" * 4) >= 6  # the one rule under each table's header


@dataclass(frozen=True)
class S:  # the fields of store.SessionRecord the reports read
    kind: str
    started_at: datetime
    summary: dict | None


def test_mock_scores_over_time_with_the_formula():
    from trainer.reports.md import render_md
    from trainer.reports.text import render_text

    sessions = [S("mock", at(5), {"score": 40, "passed": 1, "total": 3, "minutes": 30}),
                S("warmup", at(4), {"score": 99}),
                S("mock", at(3), None),  # interrupted: no summary
                S("mock", at(2), {"score": "90", "passed": 1, "total": 3}),  # not a number: left out
                S("mock", at(1), {"score": 85, "passed": 3, "total": 3, "minutes": 45})]
    mocks = r.mock_scores(sessions, UTC)
    assert [(m.score, m.passed, m.total, m.minutes) for m in mocks] == [(40, 1, 3, 30.0), (85, 3, 3, 45.0)]
    report = r.build_report([A("a1", at(0), 90)], [], {}, DRILLS, NOW, UTC, sessions=sessions)
    text = render_text(report, width=100)
    assert "Mock interview scores" in text and "latest 85, best 85" in text
    assert "each drill is worth an equal share" in text and "70%" in text and "first submit" in text
    md = render_md(report)
    assert "## Mock interview scores" in md and "| 85 |" in md and "each drill is worth an equal share" in md
    data = r.to_dict(report)["mocks"]
    assert data["formula"] == r.MOCK_SCORE_FORMULA and [m["score"] for m in data["scores"]] == [40, 85]
    window = r.build_report([A("a1", at(0), 90)], [], {}, DRILLS, NOW, UTC, since=TODAY - timedelta(days=2),
                            sessions=sessions)
    assert [m.score for m in window.mocks] == [85]


def test_the_stated_formula_is_how_a_mock_is_scored():
    """MOCK_SCORE_FORMULA describes trainer.practice.flows.score(): 70% a pass, up to 20% speed
    (all of it at half the target or less, none at the target), 10% a first-submit pass."""
    from trainer.practice.flows import MockRow, score

    def one(status, seconds, target, attempts):
        return score([MockRow("d", status, seconds, target, attempts, ())])

    assert one("passed", 50, 100, 1) == 100  # half the target, first submit
    assert one("passed", 100, 100, 1) == 80  # at the target: no speed share
    assert one("passed", 75, 100, 2) == 80  # halfway: half the speed share, not first submit
    assert one("passed", 200, 100, 3) == 70  # a pass alone
    assert one("failed", 10, 100, 1) == 0 and one("not reached", 0, 100, 0) == 0
    assert score([MockRow("a", "passed", 50, 100, 1, ()), MockRow("b", "failed", 0, 100, 1, ())]) == 50  # shares


def test_unicode_bars_and_sparklines():
    assert bar(0.5, 1.0, 4) == "██░░"
    assert bar(0, 1.0, 3) == "░░░" and bar(1, 8, 1) == "▏"
    assert sparkline([1, 2, 3]) == "▁▅█" and sparkline([5, 5]) == "▄▄" and sparkline([]) == ""


def test_mmss_and_duration():
    assert (r.mmss(65), r.mmss(None), r.mmss(3725)) == ("1:05", "—", "1:02:05")
    assert (r.duration(45), r.duration(125), r.duration(3725)) == ("45 s", "2 min", "1h 02m")


# ------------------------------------------------------------ the CLI


@pytest.fixture(scope="module")
def app():
    from trainer.cli import _register, app

    _register()
    return app


@pytest.fixture
def fixed_clock(monkeypatch):
    """A fixed clock and zone for the report command (the catalogue comes from the warm
    cache every test's DRILL_HOME starts with: tests/conftest.py)."""
    import trainer.cli.reporting as reporting

    monkeypatch.setattr(reporting, "now", lambda: NOW)
    monkeypatch.setattr(reporting, "local_zone", lambda: UTC)


def seed_history() -> None:
    """Two weeks of practice on real catalogue drills, recorded through the store."""
    with open_store(clock=lambda: NOW) as store:
        plan = [  # days ago, drill, seconds, verdict, traps
            (9, "broadcast-rule", 300, "wrong", ["align-left"]),
            (9, "broadcast-rule", 280, "pass", []),
            (3, "outer-typo", 200, "wrong", ["outer-broadcast"]),
            (2, "outer-typo", 140, "pass", []),
            (1, "broadcast-rule", 190, "pass", []),
            (1, "outer-typo", 100, "wrong", ["outer-broadcast"]),
            (0, "outer-typo", 90, "pass", []),
        ]
        # what `drill check --record` writes: mode check, no target time
        store.record_attempt(NewAttempt("outer-typo", "check", at(0, 10), 0.4, "pass", target_seconds=None))
        mock = store.start_session("mock", {"seed": 1, "minutes": 30, "drills": ["outer-typo", "broadcast-rule"]})
        store.end_session(mock, {"seed": 1, "minutes": 30, "passed": 1, "total": 2, "score": 55, "seconds": 900.0,
                                 "drills": [], "mistakes": []})
        for days, drill, seconds, verdict, traps in plan:
            store.record_attempt(NewAttempt(drill, "solve", at(days), seconds, verdict, target_seconds=240,
                                            traps=traps))


def invoke(app, *args: str):
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "100"})  # the tables' rows read whole, at any runner's width


def test_every_format_on_a_seeded_history(app, fixed_clock, tmp_path):
    seed_history()
    text = invoke(app, "report")
    assert text.exit_code == 0, text.output
    out = text.stdout
    assert "streak 4 days" in out and "Mastery per topic" in out and "Practice calendar" in out
    assert "drill solve outer-typo" in out and "outer-broadcast" in out and "Reviews due" in out
    assert "█" in out and "\x1b[" not in out  # not a terminal: glyphs, no colour codes
    assert "Mock interview scores" in out and "latest 55" in out

    md = invoke(app, "report", "--format", "md").stdout
    assert md.startswith("# Drill progress, 2026-12-01")
    for heading in ("## Mastery per topic", "## Practice calendar", "## Reviews due in the next 14 days",
                    "## Time to solve", "## Most frequent mistakes", "## Weakest drills"):
        assert heading in md
    assert "| `outer-broadcast` | 2 |" in md and "1 pass from graded files" in md

    html = invoke(app, "report", "--format", "html").stdout
    assert html.startswith("<!DOCTYPE html>") and html.count("<svg") >= 4
    assert "<script" not in html and "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert 'data-level="4"' in html
    assert "`" not in html and "<code>drill optimize</code>" in html  # the words' backticks are <code> on the page

    data = json.loads(invoke(app, "report", "--format", "json").stdout)
    assert data["empty"] is False and data["streak"] == 4 and data["today"] == "2026-12-01"
    assert data["totals"] == {"attempts": 8, "passes": 5, "drills": 2, "days": 5, "seconds": 1300.4}
    assert data["first_try"] == {"attempts": 8, "passes": 5, "rate": pytest.approx(5 / 8, abs=1e-4)}
    assert data["mistakes"][0]["trap"] == "outer-broadcast" and data["mistakes"][0]["count"] == 2
    assert "drill solve outer-typo" in data["mistakes"][0]["practise"]
    [trend] = [t for t in data["trends"] if t["drill"] == "outer-typo"]
    assert [p["seconds"] for p in trend["points"]] == [140, 90] and trend["target"] == 150
    assert data["untimed_passes"] == 1  # the `drill check --record` pass times the grader, not the person
    assert len(data["due"]) == 14 and sum(d["count"] for d in data["due"]) >= 1
    assert {w["drill"] for w in data["weakest"]} == {"broadcast-rule", "outer-typo"}
    assert data["mocks"]["formula"] == r.MOCK_SCORE_FORMULA
    assert [(m["score"], m["passed"], m["total"]) for m in data["mocks"]["scores"]] == [(55, 1, 2)]
    assert {d["day"]: d["count"] for d in data["heatmap"]["days"]} == {
        "2026-11-22": 2, "2026-11-28": 1, "2026-11-29": 1, "2026-11-30": 2, "2026-12-01": 2}

    out_file = tmp_path / "r.html"
    written = invoke(app, "report", "-f", "html", "--output", str(out_file))
    assert written.exit_code == 0 and out_file.read_text().startswith("<!DOCTYPE html>")
    assert stat.S_IMODE(out_file.stat().st_mode) == 0o644  # a report is written to be shared, as boards are


def test_since_limits_the_window(app, fixed_clock):
    seed_history()
    data = json.loads(invoke(app, "report", "--format", "json", "--since", "2026-11-29").stdout)
    assert data["since"] == "2026-11-29" and data["totals"]["attempts"] == 5
    assert data["streak"] == 4  # the streak is about the present, not the window
    assert data["heatmap"]["first"] == "2026-11-29"
    relative = json.loads(invoke(app, "report", "-f", "json", "--since", "2d").stdout)
    assert relative["since"] == "2026-11-29"
    bad = invoke(app, "report", "--since", "last tuesday")
    assert bad.exit_code == 2 and "--since" in bad.stderr


def test_no_color_and_colour(app, fixed_clock, monkeypatch):
    seed_history()
    from trainer.cli.reporting import gather
    from trainer.reports.text import render_text

    report = gather(NOW, UTC, None)
    assert "\x1b[" in render_text(report, color=True) and "\x1b[" not in render_text(report, color=False)
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in invoke(app, "report").stdout


@pytest.mark.parametrize("fmt", ["text", "md", "html", "json"])
def test_empty_history_is_a_friendly_report(app, fixed_clock, fmt, _drill_home):
    result = invoke(app, "report", "--format", fmt)
    assert result.exit_code == 0, result.output
    if fmt == "json":
        data = json.loads(result.stdout)
        assert data["empty"] is True and data["next_steps"][0] == "drill list"
    else:
        assert "No practice recorded yet" in result.stdout and "drill solve" in result.stdout
    assert not database_exists(_drill_home)  # reading a report never creates the database


def test_bad_format_is_a_usage_error(app, fixed_clock):
    result = invoke(app, "report", "--format", "pdf")
    assert result.exit_code == 2 and "unknown format" in result.stderr


def test_report_imports_no_torch():
    import subprocess
    import sys

    code = ("import sys; from trainer.cli import _register; _register(); import trainer.reports, "
            "trainer.reports.html, trainer.reports.text, trainer.team.render; print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert out.stdout.strip() == "False", out.stderr


def test_list_best_leaves_out_grader_timed_passes_as_the_report_does(app, fixed_clock):
    """`drill check --record` passed outer-typo in 0.4 s of grading; the person's best is 1:30
    in `drill list` as in `drill report` (one definition of a solving time)."""
    seed_history()
    listed = invoke(app, "list")
    assert listed.exit_code == 0, listed.output
    [line] = [line for line in listed.stdout.splitlines() if " outer-typo " in f" {line} "]
    assert " 1:30 " in line and " 0:00 " not in line
    with open_store() as store:
        summaries = store.drill_summaries()
    data = json.loads(invoke(app, "report", "--format", "json").stdout)
    [trend] = [t for t in data["trends"] if t["drill"] == "outer-typo"]
    assert summaries["outer-typo"].best_seconds == min(p["seconds"] for p in trend["points"]) == 90


# ------------------------------------------------------------------ variants

MASK = r.AxisInfo("mask", "keep", ("keep", "pad", "additive"))
LAYOUT = r.AxisInfo("layout", "btd", ("btd", "tbd"))


def test_variants_passed_and_failed_per_drill_and_the_weakest_overall():
    drills = {"v1": r.DrillInfo("v1", "Vee one", "alpha", 100.0, axes=(MASK, LAYOUT)),
              "v2": r.DrillInfo("v2", "Vee two", "alpha", 100.0, axes=(MASK,)), **CAT}
    attempts = [A("v1", at(5), 60), A("v1", at(4), 60, "wrong", variant={"mask": "pad"}),
                A("v1", at(3), 60, "wrong", variant={"mask": "pad", "layout": "tbd"}),
                A("v1", at(2), 60, variant={"layout": "tbd"}),
                A("v2", at(3), 60, "wrong", variant={"mask": "additive"}), A("v2", at(2), 60, variant={"mask": "additive"}),
                A("a1", at(1), 60)]
    per = r.variant_results(attempts, drills)
    assert [d.drill for d in per] == ["v1", "v2"]  # a1 has no axes: no row
    v1 = per[0]
    assert [v.label for v in v1.passed] == ["mask=keep", "layout=btd", "layout=tbd"]
    assert [v.label for v in v1.failed] == ["mask=pad"] and [v.label for v in v1.untried] == ["mask=additive"]
    weak = r.weakest_variants(per)
    # still failed first (v1 mask=pad, two fails), then failed and passed since (v2 mask=additive);
    # layout=tbd failed once and passed once: after them; a default never counts as failed here
    assert [(v.drill, v.label, v.fails, v.passes, v.last) for v in weak] == [
        ("v1", "mask=pad", 2, 0, "fail"), ("v1", "layout=tbd", 1, 1, "pass"), ("v2", "mask=additive", 1, 1, "pass")]


def seed_variant_history() -> None:
    with open_store(clock=lambda: NOW) as store:
        for days, verdict, variant in [(4, "pass", {}), (3, "wrong", {"mask": "pad"}), (2, "wrong", {"mask": "pad"}),
                                       (1, "pass", {"layout": "tbd"})]:
            store.record_attempt(NewAttempt("mha-padding", "warmup", at(days), 200, verdict, target_seconds=420,
                                            variant=variant))


def test_every_format_shows_the_variants_and_list_marks_the_unpassed(app, fixed_clock):
    seed_variant_history()
    text = invoke(app, "report")
    assert text.exit_code == 0, text.output
    out = text.stdout
    assert "Variants per drill" in out and "Weakest variants" in out
    [row] = [line for line in out.splitlines() if line.startswith("mha-padding") and "mask=keep" in line]
    assert "layout=tbd" in row and "mask=pad" in row and "mask=additive" in row
    assert "failed 2, passed 0 (last failed)" in out and "drill solve DRILL --variant AXIS=VALUE" in out

    md = invoke(app, "report", "--format", "md").stdout
    assert "## Variants" in md and "### Weakest variants" in md
    assert ("| `mha-padding` | `mask=pad` | failed 2, passed 0 (last failed) | "
            "`drill solve mha-padding --variant mask=pad` |") in md
    html = invoke(app, "report", "--format", "html").stdout
    assert "Weakest variants" in html and "<code>mask=pad</code>" in html and 'class="bad">mask=pad<' in html
    data = json.loads(invoke(app, "report", "--format", "json").stdout)
    [d] = data["variants"]
    assert d["drill"] == "mha-padding"
    assert {(v["axis"], v["value"]): (v["passes"], v["fails"], v["last"]) for v in d["values"]} == {
        ("mask", "keep"): (2, 0, "pass"), ("mask", "pad"): (0, 2, "fail"), ("mask", "additive"): (0, 0, None),
        ("layout", "btd"): (1, 0, "pass"), ("layout", "tbd"): (1, 0, "pass")}
    assert [(v["drill"], v["axis"], v["value"]) for v in data["weakest_variants"]] == [("mha-padding", "mask", "pad")]

    listed = invoke(app, "list")
    assert listed.exit_code == 0, listed.output
    assert "variants" in listed.stdout.splitlines()[0]
    [line] = [line for line in listed.stdout.splitlines() if " mha-padding " in f" {line} "]
    assert "3/5*" in line.split()  # keep, btd, tbd passed; pad and additive not yet
    [plain_drill] = [line for line in listed.stdout.splitlines() if " outer-typo " in f" {line} "]
    assert "*" not in plain_drill  # a drill without variants is never marked


def test_a_trap_only_a_variant_has_is_explained_and_practised_under_it(app, fixed_clock):
    """ln-affine-last-axis exists only under reduction-axes' layout=bdt: the report said nothing of
    what it means and sent the person to the contract as written, where it cannot be met."""
    with open_store(clock=lambda: NOW) as store:
        store.record_attempt(NewAttempt("reduction-axes", "solve", at(1), 200, "wrong", target_seconds=240,
                                        traps=["ln-affine-last-axis"], variant={"layout": "bdt"}))
        store.record_attempt(NewAttempt("causal-padding-mask", "check", at(1), 1, "wrong", target_seconds=None,
                                        traps=["keep-convention"]))
    data = json.loads(invoke(app, "report", "--format", "json").stdout)
    mistakes = {m["trap"]: m for m in data["mistakes"]}
    assert mistakes["ln-affine-last-axis"]["message"].startswith("matches multiplying the (B, d, T) result")
    assert mistakes["ln-affine-last-axis"]["practise"][0] == "drill solve reduction-axes --variant layout=bdt"
    keep = mistakes["keep-convention"]
    assert keep["message"] and keep["practise"][0].startswith("drill solve causal-padding-mask --variant ")
    text = " ".join(invoke(app, "report").stdout.split())
    assert "drill solve reduction-axes --variant layout=bdt" in text


def test_the_text_report_fits_sixty_columns_without_cutting_names(app, fixed_clock):
    seed_history()
    seed_variant_history()
    out = CliRunner().invoke(app, ["report"], env={"COLUMNS": "60"}).stdout
    assert out and max(len(line) for line in out.splitlines()) <= 60  # the terminal never hard-wraps a line
    for topic in ("broadcasting", "gather-scatter", "einsum-and-rest"):
        assert any(line.startswith(topic + " ") for line in out.splitlines())
    assert "…" not in out.split("Weakest drills")[0]  # the tables before it fit whole
