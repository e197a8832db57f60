"""`drill report --format md`: a markdown page for a study journal or a PR.

Charts are unicode (a heatmap grid and bars in a fenced block, sparklines in
tables) so they read the same in a terminal, an editor and a rendered page.
"""
from __future__ import annotations

from trainer.text.markup import md_code, md_text
from trainer.reports import (
    MOCK_SCORE_FORMULA,
    Report,
    best_text,
    duration,
    first_try_text,
    mmss,
    percent,
    plural,
    untimed_note,
)
from trainer.reports.charts import bar, heat_grid, sparkline
from trainer.reports.words import VARIANTS_NOTE, practise_commands, values_text, variant_command, variant_tally


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def _empty(report: Report) -> list[str]:
    lines = ["No practice recorded yet. Your report fills in as you solve drills; a good first session:", ""]
    lines += [f"{i}. {md_code(s)}" for i, s in enumerate(report.next_steps, 1)]
    return lines


def _mocks(report: Report) -> list[str]:
    formula = f"_{md_text(MOCK_SCORE_FORMULA[0].upper() + MOCK_SCORE_FORMULA[1:])}._"
    if not report.mocks:
        return ["No mock interview finished in this window yet (`drill mock`)."]
    rows = [[m.at.strftime("%Y-%m-%d %H:%M"), str(m.score), bar(m.score, 100, 20), f"{m.passed}/{m.total}",
             "—" if m.minutes is None else f"{m.minutes:g}"] for m in report.mocks]
    return (_table(["day", "score", "", "passed", "minutes"], rows)
            + ["", (f"Trend {sparkline([m.score for m in report.mocks])}: latest {report.mocks[-1].score}, "
                    f"best {max(m.score for m in report.mocks)}."), "", formula])


def _variants(report: Report) -> list[str]:
    if not report.variants:
        return ["No drill with variants practised yet."]
    lines = _table(["drill", "passed", "failed", "not yet"],
                   [[md_code(d.drill), md_text(values_text(d.passed)), md_text(values_text(d.failed)),
                     md_text(values_text(d.untried))] for d in report.variants])
    lines += ["", f"_{md_text(VARIANTS_NOTE[0].upper() + VARIANTS_NOTE[1:])}._", "", "### Weakest variants", ""]
    if not report.weakest_variants:
        return lines + ["None failed."]
    return lines + _table(["drill", "variant", "results", "practise"],
                          [[md_code(v.drill), md_code(v.label), md_text(variant_tally(v)),
                            md_code(variant_command(v))] for v in report.weakest_variants])


def render_md(report: Report) -> str:
    window = f"since {report.since.isoformat()}" if report.since else "all history"
    lines = [f"# Drill progress, {report.today.isoformat()}", "", f"_{md_text(window)}_", ""]
    if report.empty:
        return "\n".join(lines + _empty(report)) + "\n"
    t, ft = report.totals, report.first_try
    lines += [
        f"- **Streak:** {plural(report.streak, 'day')}",
        f"- **Mastery:** {percent(report.overall_mastery)} (FSRS recall across the catalogue)",
        f"- **First-try pass rate:** {percent(ft.rate)} ({ft.passes} of {ft.attempts})",
        f"- **Attempts:** {t.passes} passed of {t.attempts}, {plural(t.drills, 'drill')}, {plural(t.days, 'day')}, "
        f"{duration(t.seconds)} practising",
        "",
        "## Mastery per topic", "",
    ]
    lines += _table(["topic", "mastery", "", "practised"],
                    [[md_text(m.topic), percent(m.mastery), bar(m.mastery, 1.0, 20), f"{m.practised}/{m.total}"]
                     for m in report.mastery])
    lines += ["", f"## Practice calendar ({plural(report.heatmap.active_days, 'active day')})", "", "```text"]
    lines += heat_grid(report.heatmap)
    lines += ["```", "", "## Reviews due in the next 14 days", ""]
    top = max((d.count for d in report.due), default=0)
    lines += ["```text"] + [f"{'today' if i == 0 else d.day.strftime('%a'):<5} {d.day.strftime('%d %b')}  "
                            f"{bar(d.count, top, 20, empty=' ')} {d.count}".rstrip()
                            for i, d in enumerate(report.due)] + ["```", ""]
    if report.scheduler is not None:
        from trainer.reports.scheduler import lines as scheduler_lines

        lines += ["## Scheduler", ""] + [md_text(line) for line in scheduler_lines(report.scheduler)] + [""]
    lines += ["## Time to solve", ""]
    if report.trends:
        lines += _table(["drill", "trend", "best", "latest", "target", ""],
                        [[md_code(tr.drill), sparkline([p.seconds for p in tr.points]), mmss(tr.best),
                          mmss(tr.latest), mmss(tr.target),
                          "on target" if tr.on_target else ("over target" if tr.on_target is False else "")]
                         for tr in report.trends])
    else:
        lines.append("No timed pass in this window yet.")
    if report.untimed:
        lines += ["", f"_{md_text(untimed_note(report.untimed))}_"]
    lines += ["", "## Most frequent mistakes", ""]
    if report.mistakes:
        lines += _table(["trap", "times", "what it means", "practise"],
                        [[md_code(m.trap), str(m.count), md_text(m.message),
                          ", ".join(md_code(c) for c in practise_commands(m)[:3])]
                         for m in report.mistakes])
    else:
        lines.append("No known trap matched in this window.")
    lines += ["", "## Weakest drills", ""]
    lines += _table(["drill", "topic", "first try", "passed", "recall", "best / target", "practise"],
                    [[md_code(w.drill), md_text(w.topic), first_try_text(w), f"{w.passes}/{w.attempts}",
                      percent(w.recall), best_text(w), md_code(w.command)] for w in report.weakest])
    lines += ["", "## Variants", ""] + _variants(report)
    lines += ["", "## Mock interview scores", ""] + _mocks(report)
    lines += ["", "## Next", ""] + [f"- {md_code(s)}" for s in report.next_steps]
    return "\n".join(lines) + "\n"
