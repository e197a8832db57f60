"""Inline SVG charts for the HTML report and board: plain strings, no library,
no network. Every piece of text that reaches the markup goes through ``esc``.
"""
from __future__ import annotations

from datetime import date, datetime
from typing import Sequence

from trainer.text.markup import html_text as esc
from trainer.reports import DrillTrend, DueDay, Heatmap, MockScore, TopicMastery, mmss
from trainer.reports.charts import month_starts

HEAT_COLOURS = ("#ebedf0", "#9be9a8", "#40c463", "#30a14e", "#216e39")
ACCENT = "#2563eb"
GOOD = "#16a34a"
BAD = "#dc2626"
MUTED = "#6b7280"
GRID = "#e5e7eb"
FONT = "font-family=\"system-ui, -apple-system, 'Segoe UI', sans-serif\""


def _svg(width: float, height: float, body: list[str], label: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
            f'style="max-width:100%;height:auto" '
            f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="{esc(label)}" {FONT}>'
            f'<title>{esc(label)}</title>' + "".join(body) + "</svg>")


def _text(x: float, y: float, text: object, *, size: int = 11, fill: str = MUTED, anchor: str = "start",
          weight: str = "normal") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" fill="{fill}" text-anchor="{anchor}" '
            f'font-weight="{weight}">{esc(text)}</text>')


def mastery_bars(rows: Sequence[TopicMastery], width: int = 470) -> str:
    """One horizontal bar per topic: mastery (filled) with the practised count beside it."""
    label_w, bar_w, row_h = 120, width - 120 - 110, 26
    body = []
    for i, m in enumerate(rows):
        y = 8 + i * row_h
        colour = GOOD if m.mastery >= 0.7 else ACCENT if m.mastery >= 0.35 else "#f59e0b"
        body.append(_text(0, y + 13, m.topic, size=12, fill="#111827"))
        body.append(f'<rect x="{label_w}" y="{y}" width="{bar_w}" height="16" rx="3" fill="{GRID}"/>')
        if m.mastery > 0:
            body.append(f'<rect x="{label_w}" y="{y}" width="{max(2.0, bar_w * m.mastery):.1f}" height="16" '
                        f'rx="3" fill="{colour}"><title>{esc(m.topic)}: {round(100 * m.mastery)}%</title></rect>')
        body.append(_text(label_w + bar_w + 8, y + 13, f"{round(100 * m.mastery)}%", size=12, fill="#111827",
                          weight="600"))
        body.append(_text(label_w + bar_w + 48, y + 13, f"{m.practised}/{m.total} drills", size=11))
    return _svg(width, 8 + len(rows) * row_h, body, "mastery per topic")


def heatmap_svg(hm: Heatmap, cell: int = 19, gap: int = 4) -> str:
    """A GitHub-style calendar: weeks as columns, Monday at the top, month names above."""
    step = cell + gap
    left, top = 34, 20
    body = []
    for row, name in ((0, "Mon"), (2, "Wed"), (4, "Fri"), (6, "Sun")):
        body.append(_text(0, top + row * step + cell - 5, name, size=10))
    free_from = 0.0
    for col, name in month_starts(hm):
        if left + col * step >= free_from:
            body.append(_text(left + col * step, 12, name, size=10))
            free_from = left + col * step + 26
    for col, week in enumerate(hm.weeks):
        for row, c in enumerate(week):
            if c is None:
                continue
            x, y = left + col * step, top + row * step
            tip = f"{c.day.isoformat()}: {c.count} attempt{'s' if c.count != 1 else ''}"
            body.append(f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" rx="2" '
                        f'fill="{HEAT_COLOURS[c.level]}" data-level="{c.level}"><title>{esc(tip)}</title></rect>')
    width = left + len(hm.weeks) * step
    legend_y = top + 7 * step + 6
    lx = width - 5 * step - 70
    body.append(_text(lx - 4, legend_y + cell - 2, "less", size=9, anchor="end"))
    for i, colour in enumerate(HEAT_COLOURS):
        body.append(f'<rect x="{lx + i * step}" y="{legend_y}" width="{cell}" height="{cell}" rx="2" fill="{colour}"/>')
    body.append(_text(lx + 5 * step + 2, legend_y + cell - 2, "more", size=9))
    return _svg(max(width, 260), legend_y + cell + 4, body, "practice calendar")


def due_columns(days: Sequence[DueDay], width: int = 470, height: int = 160) -> str:
    """Reviews due per day as columns, with the count on top and the weekday below."""
    top_n = max((d.count for d in days), default=0) or 1
    base, plot_h = height - 30, height - 52
    col_w = width / max(1, len(days))
    body = [f'<line x1="0" y1="{base}" x2="{width}" y2="{base}" stroke="{GRID}"/>']
    for i, d in enumerate(days):
        x = i * col_w + col_w * 0.18
        w = col_w * 0.64
        h = plot_h * d.count / top_n
        fill = ACCENT if i else "#7c3aed"
        if d.count:
            body.append(f'<rect x="{x:.1f}" y="{base - h:.1f}" width="{w:.1f}" height="{h:.1f}" rx="2" '
                        f'fill="{fill}"><title>{esc(d.day.isoformat())}: {d.count} due</title></rect>')
        body.append(_text(x + w / 2, base - h - 4, d.count, size=10, fill="#111827", anchor="middle"))
        body.append(_text(x + w / 2, base + 13, "today" if i == 0 else d.day.strftime("%a"), size=9,
                          anchor="middle"))
        body.append(_text(x + w / 2, base + 25, d.day.strftime("%d"), size=9, anchor="middle"))
    return _svg(width, height, body, "reviews due in the next 14 days")


def nice_ceiling(seconds: float) -> float:
    """The axis top: whole minutes (half minutes under two minutes)."""
    unit = 30.0 if seconds < 120 else 60.0
    return max(unit, unit * -(-seconds // unit))


def _x_positions(times: Sequence[datetime], left: float, width: float) -> list[float]:
    if len(times) == 1:
        return [left + width / 2]
    return [left + width * i / (len(times) - 1) for i in range(len(times))]


def trend_chart(t: DrillTrend, width: int = 320, height: int = 124) -> str:
    """Seconds to solve per passing attempt (one point each, in order) against a dashed target."""
    left, right, top, bottom = 34, 8, 34, 14
    plot_w, plot_h = width - left - right, height - top - bottom
    values = [p.seconds for p in t.points]
    ceiling = nice_ceiling(max(values + ([t.target] if t.target else [])) * 1.08)

    def y(v: float) -> float:
        return top + plot_h * (1 - v / ceiling)

    body = [_text(0, 13, t.drill, size=11, fill="#111827", weight="600")]
    body.append(f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="{GRID}"/>')
    body.append(_text(left - 4, top + plot_h, "0", size=9, anchor="end"))
    body.append(_text(left - 4, top + 8, mmss(ceiling), size=9, anchor="end"))
    if t.target:
        ty = y(t.target)
        body.append(f'<line x1="{left}" y1="{ty:.1f}" x2="{left + plot_w}" y2="{ty:.1f}" stroke="{BAD}" '
                    f'stroke-dasharray="4 3" stroke-width="1"/>')
    xs = _x_positions([p.at for p in t.points], left + 6, plot_w - 12)
    pts = [(x, y(v)) for x, v in zip(xs, values)]
    if len(pts) > 1:
        path = " ".join(f"{x:.1f},{yy:.1f}" for x, yy in pts)
        body.append(f'<polyline points="{path}" fill="none" stroke="{ACCENT}" stroke-width="2"/>')
    for (x, yy), p in zip(pts, t.points):
        ok = t.target is None or p.seconds <= t.target
        body.append(f'<circle cx="{x:.1f}" cy="{yy:.1f}" r="3.5" fill="{GOOD if ok else BAD}">'
                    f'<title>{esc(p.at.date().isoformat())}: {mmss(p.seconds)}</title></circle>')
    body.append(_text(0, 27, f"latest {mmss(t.latest)}", size=10,
                      fill=GOOD if t.on_target is not False else BAD, weight="600"))
    body.append(_text(width - right, 27, f"best {mmss(t.best)}" + (f" · target {mmss(t.target)}" if t.target else ""),
                      size=10, anchor="end"))
    return _svg(width, height, body, f"time to solve {t.drill}")


def mock_chart(mocks: Sequence[MockScore], width: int = 470, height: int = 150) -> str:
    """Mock interview scores (0..100), one point each, oldest to newest."""
    left, right, top, bottom = 30, 10, 12, 22
    plot_w, plot_h = width - left - right, height - top - bottom

    def y(v: float) -> float:
        return top + plot_h * (1 - v / 100)

    body = []
    for v in (0, 50, 100):
        body.append(f'<line x1="{left}" y1="{y(v):.1f}" x2="{left + plot_w}" y2="{y(v):.1f}" stroke="{GRID}"/>')
        body.append(_text(left - 4, y(v) + 3, str(v), size=9, anchor="end"))
    xs = _x_positions([m.at for m in mocks], left + 8, plot_w - 16)
    pts = [(x, y(m.score)) for x, m in zip(xs, mocks)]
    if len(pts) > 1:
        path = " ".join(f"{x:.1f},{yy:.1f}" for x, yy in pts)
        body.append(f'<polyline points="{path}" fill="none" stroke="{ACCENT}" stroke-width="2"/>')
    for (x, yy), m in zip(pts, mocks):
        tip = f"{m.at.strftime('%Y-%m-%d %H:%M')}: {m.score}/100, {m.passed}/{m.total} passed"
        body.append(f'<circle cx="{x:.1f}" cy="{yy:.1f}" r="4" fill="{ACCENT}"><title>{esc(tip)}</title></circle>')
    if mocks:
        body.append(_text(left, height - 6, mocks[0].at.strftime("%d %b"), size=9))
        body.append(_text(left + plot_w, height - 6, mocks[-1].at.strftime("%d %b"), size=9, anchor="end"))
    return _svg(width, height, body, "mock interview scores")


def hbar_chart(rows: Sequence[tuple[str, float, str]], width: int = 520, colour: str = ACCENT,
               label_w: int = 180) -> str:
    """Generic horizontal bars: (label, value, value text); bars scaled to the largest value."""
    top_v = max((v for _, v, _ in rows), default=0) or 1
    bar_w, row_h = width - label_w - 130, 24
    room = max(4, label_w // 7)
    body = []
    for i, (label, value, shown) in enumerate(rows):
        y = 6 + i * row_h
        body.append(_text(0, y + 12, label if len(label) <= room else label[:room - 1] + "…", size=12, fill="#111827"))
        body.append(f'<rect x="{label_w}" y="{y}" width="{max(2.0, bar_w * value / top_v):.1f}" height="15" '
                    f'rx="3" fill="{colour}"><title>{esc(label)}: {esc(shown)}</title></rect>')
        body.append(_text(label_w + bar_w * value / top_v + 6, y + 12, shown, size=11, fill="#111827"))
    return _svg(width, 8 + len(rows) * row_h, body, "bar chart")


def day_label(d: date) -> str:
    return d.strftime("%a %d %b")
