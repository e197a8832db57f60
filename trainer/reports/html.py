"""`drill report --format html`: one self-contained page (inline CSS and SVG, no
script, no network). Every string from the store or the catalogue is escaped.
"""
from __future__ import annotations

import re

from trainer.reports import (
    MOCK_SCORE_FORMULA,
    Report,
    best_text,
    duration,
    first_try_text,
    percent,
    plural,
    untimed_note,
)
from trainer.reports.words import VARIANTS_NOTE, practise_commands, values_text, variant_command, variant_tally
from trainer.reports.svg import (
    due_columns,
    esc,
    heatmap_svg,
    mastery_bars,
    mock_chart,
    trend_chart,
)

CSS = """
*{box-sizing:border-box}
body{margin:0;background:#f6f7f9;color:#111827;font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif}
main{max-width:1100px;margin:0 auto;padding:28px 24px 40px}
h1{font-size:24px;margin:0 0 2px}
h2{font-size:15px;margin:0 0 12px;text-transform:uppercase;letter-spacing:.04em;color:#374151}
.sub{color:#6b7280;margin:0 0 20px}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:12px;margin-bottom:16px}
.card,.panel{background:#fff;border:1px solid #e5e7eb;border-radius:10px}
.card{padding:12px 14px}
.card .v{font-size:26px;font-weight:700}
.card .k{color:#6b7280;font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.grid{display:grid;grid-template-columns:1fr 1fr;gap:16px;margin-bottom:16px}
.panel{padding:16px 18px;margin-bottom:16px;overflow-x:auto}
.grid .panel{margin-bottom:0}
.trends{display:grid;grid-template-columns:repeat(auto-fill,minmax(320px,1fr));gap:10px}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid #f0f1f3;vertical-align:top}
th{font-size:12px;color:#6b7280;text-transform:uppercase;letter-spacing:.03em}
code{white-space:nowrap;background:#f3f4f6;border-radius:4px;padding:1px 5px;\
font:12.5px ui-monospace,SFMono-Regular,Menlo,monospace}
.muted{color:#6b7280}.good{color:#16a34a}.bad{color:#dc2626}
.hero{padding:28px}.hero ol{margin:8px 0 0;padding-left:20px}.hero li{margin:6px 0}
@media (max-width:800px){.grid{grid-template-columns:1fr}}
"""


def page(title: str, body: str) -> str:
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(title)}</title><style>{CSS}</style></head><body><main>{body}</main></body></html>\n")


def _card(value: str, key: str, cls: str = "") -> str:
    return f'<div class="card"><div class="v {cls}">{esc(value)}</div><div class="k">{esc(key)}</div></div>'


def _panel(title: str, inner: str, note: str = "") -> str:
    extra = f' <span class="muted" style="text-transform:none;letter-spacing:0">{esc(note)}</span>' if note else ""
    return f'<section class="panel"><h2>{esc(title)}{extra}</h2>{inner}</section>'


def _scheduler(report: Report) -> str:
    from trainer.reports.scheduler import html

    return "" if report.scheduler is None else _panel("Scheduler", html(report.scheduler), "FSRS at work")


def _cmd(command: str) -> str:
    return f"<code>{esc(command)}</code>"


def _empty(report: Report) -> str:
    steps = "".join(f"<li>{_cmd(s)}</li>" for s in report.next_steps)
    return (f'<section class="panel hero"><h2>No practice recorded yet</h2>'
            f"<p>Your report fills in as you solve drills. A good first session:</p><ol>{steps}</ol>"
            f'<p class="muted">Every passed or failed attempt counts; the heatmap, trends and '
            f"spaced-repetition schedule start from your first one.</p></section>")


def _header(report: Report) -> str:
    window = f"since {report.since.isoformat()}" if report.since else "all history"
    return (f"<h1>Drill progress</h1><p class=\"sub\">{esc(report.today.strftime('%A %d %B %Y'))} · "
            f"{esc(window)}</p>")


def _cards(report: Report) -> str:
    t, ft = report.totals, report.first_try
    return '<div class="cards">' + "".join([
        _card(plural(report.streak, "day"), "streak"),
        _card(percent(report.overall_mastery), "mastery"),
        _card(percent(ft.rate), f"first-try passes ({ft.passes}/{ft.attempts})"),
        _card(f"{t.passes}/{t.attempts}", "passed attempts"),
        _card(str(t.drills), "drills practised"),
        _card(duration(t.seconds), "time practising"),
    ]) + "</div>"


def _mistakes(report: Report) -> str:
    if not report.mistakes:
        return '<p class="muted">No known trap matched in this window. Nice.</p>'
    rows = "".join(
        f"<tr><td><code>{esc(m.trap)}</code></td><td>{m.count}</td><td>{esc(m.message)}</td>"
        f"<td>{' '.join(_cmd(c) for c in practise_commands(m)[:3])}</td></tr>"
        for m in report.mistakes)
    return (f"<table><tr><th>trap</th><th>times</th><th>what it means</th><th>practise</th></tr>{rows}</table>")


_BEST_CLASS = {True: ' style="white-space:nowrap"', False: ' class="bad" style="white-space:nowrap"'}


def _weakest(report: Report) -> str:
    if not report.weakest:
        return '<p class="muted">Nothing practised yet.</p>'
    rows = "".join(
        f"<tr><td><b>{esc(w.drill)}</b><br><span class=\"muted\">{esc(w.title)}</span></td>"
        f"<td style=\"white-space:nowrap\">{esc(w.topic)}</td><td>{esc(first_try_text(w))}</td>"
        f"<td>{w.passes}/{w.attempts}</td><td>{esc(percent(w.recall))}</td>"
        f"<td{_BEST_CLASS[w.passed]}>{esc(best_text(w))}</td><td>{_cmd(w.command)}</td></tr>"
        for w in report.weakest)
    return ("<table><tr><th>drill</th><th>topic</th><th>first try</th><th>passed</th><th>recall</th>"
            f"<th>best / target</th><th>practise</th></tr>{rows}</table>")


def _variants(report: Report) -> str:
    if not report.variants:
        return '<p class="muted">No drill with variants practised yet.</p>'
    bad = {True: ' class="bad"', False: ""}
    rows = "".join(f"<tr><td><b>{esc(d.drill)}</b></td><td>{esc(values_text(d.passed))}</td>"
                   f"<td{bad[bool(d.failed)]}>{esc(values_text(d.failed))}</td>"
                   f"<td>{esc(values_text(d.untried))}</td></tr>" for d in report.variants)
    out = (f"<table><tr><th>drill</th><th>passed</th><th>failed</th><th>not yet</th></tr>{rows}</table>"
           f'<p class="muted">{esc(VARIANTS_NOTE[0].upper() + VARIANTS_NOTE[1:])}.</p><h3>Weakest variants</h3>')
    if not report.weakest_variants:
        return out + '<p class="muted">None failed.</p>'
    weak = "".join(f"<tr><td><b>{esc(v.drill)}</b></td><td><code>{esc(v.label)}</code></td>"
                   f"<td>{esc(variant_tally(v))}</td><td>{_cmd(variant_command(v))}</td></tr>"
                   for v in report.weakest_variants)
    return out + f"<table><tr><th>drill</th><th>variant</th><th>results</th><th>practise</th></tr>{weak}</table>"


def _mocks(report: Report) -> str:
    formula = f'<p class="muted">{esc(MOCK_SCORE_FORMULA[0].upper() + MOCK_SCORE_FORMULA[1:])}.</p>'
    if not report.mocks:
        return '<p class="muted">No mock interview finished in this window yet (<code>drill mock</code>).</p>'
    rows = "".join(f"<tr><td>{esc(m.at.strftime('%Y-%m-%d %H:%M'))}</td><td><b>{m.score}</b></td>"
                   f"<td>{m.passed}/{m.total}</td><td>{'—' if m.minutes is None else f'{m.minutes:g}'}</td></tr>"
                   for m in report.mocks[-8:])
    return (f'<div class="grid"><div>{mock_chart(report.mocks)}</div><div><table><tr><th>day</th><th>score</th>'
            f"<th>passed</th><th>minutes</th></tr>{rows}</table></div></div>{formula}")


def _trends(report: Report) -> str:
    note = untimed_note(report.untimed)
    note_html = f'<p class="muted">{esc(note)}</p>' if note else ""
    if not report.trends:
        return '<p class="muted">No timed pass in this window yet.</p>' + note_html
    return ('<div class="trends">' + "".join(f"<div>{trend_chart(t)}</div>" for t in report.trends) + "</div>"
            + note_html)


_TICKED = re.compile(r"`([^`<>\n]+)`")
_SVG = re.compile(r"(<svg\b.*?</svg>)", re.DOTALL)


def _ticks_as_code(html: str) -> str:
    """The report's words put commands and code between backticks (`drill optimize`), as the
    text report shows them; on the page they are <code>, never literal backticks. SVG is left
    as it is (it has no <code>)."""
    parts = _SVG.split(html)
    return "".join(p if p.startswith("<svg") else _TICKED.sub(r"<code>\1</code>", p) for p in parts)


def render_html(report: Report) -> str:
    if report.empty:
        return page("Drill progress", _header(report) + _empty(report))
    window = f"since {report.since.isoformat()}" if report.since else ""
    due_total = sum(d.count for d in report.due)
    body = [
        _header(report),
        _cards(report),
        '<div class="grid">',
        _panel("Mastery per topic", mastery_bars(report.mastery), "FSRS recall now"),
        _panel("Reviews due", due_columns(report.due), f"{due_total} in the next 14 days"),
        "</div>",
        _panel("Practice calendar", heatmap_svg(report.heatmap), plural(report.heatmap.active_days, "active day")),
        _scheduler(report),
        _panel("Time to solve", _trends(report), f"passing attempts against each drill's target {window}".strip()),
        _panel("Weakest drills", _weakest(report), "the ones to practise next"),
        _panel("Most frequent mistakes", _mistakes(report), window),
        _panel("Variants", _variants(report), "passed and failed per drill, whole history"),
        _panel("Mock interviews", _mocks(report), "score out of 100, oldest → newest"),
        _panel("Next", "<p>" + " · ".join(_cmd(s) for s in report.next_steps) + "</p>"),
    ]
    return page("Drill progress", _ticks_as_code("".join(body)))
