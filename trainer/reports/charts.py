"""Unicode charts for terminals and markdown: bars, sparklines and the heatmap
grid. Plain strings with no colour, so they stay readable under NO_COLOR; the
text renderer colours the same glyphs when colour is on.
"""
from __future__ import annotations

from typing import Sequence

from trainer.reports import Heatmap

HEAT_GLYPHS = ("·", "░", "▒", "▓", "█")  # level 0..4
SPARKS = "▁▂▃▄▅▆▇█"
_EIGHTHS = " ▏▎▍▌▋▊▉"
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def bar(value: float, top: float, width: int = 20, empty: str = "░") -> str:
    """A bar of ``width`` cells for value/top, in eighths of a cell, padded with ``empty``."""
    if top <= 0 or value <= 0:
        return empty * width
    eighths = round(8 * width * min(1.0, value / top))
    eighths = max(1, eighths)
    full, part = divmod(eighths, 8)
    text = "█" * full + (_EIGHTHS[part] if part else "")
    return text + empty * (width - len(text))


def sparkline(values: Sequence[float]) -> str:
    """One glyph per value, ▁ for the smallest and █ for the largest."""
    if not values:
        return ""
    low, high = min(values), max(values)
    if high == low:
        return SPARKS[3] * len(values)
    return "".join(SPARKS[round((v - low) / (high - low) * (len(SPARKS) - 1))] for v in values)


def month_starts(hm: Heatmap) -> list[tuple[int, str]]:
    """(week column, month name) for each week holding the 1st of a month, and for the
    first column when its month has at least a week and a half left."""
    out = []
    for col, week in enumerate(hm.weeks):
        days = [c.day for c in week if c is not None]
        first = next((d for d in days if d.day == 1), None)
        if first is None and col == 0 and days and days[0].day <= 20:
            first = days[0]
        if first is not None:
            out.append((col, first.strftime("%b")))
    return out


def month_row(hm: Heatmap, cell: int = 2, indent: int = 4) -> str:
    """Month names over the weeks they start in (a name that would overlap is left out)."""
    row = [" "] * (indent + cell * len(hm.weeks) + 4)
    free_from = 0
    for col, name in month_starts(hm):
        pos = indent + col * cell
        if pos >= free_from:
            row[pos:pos + len(name)] = list(name)
            free_from = pos + len(name) + 1
    return "".join(row).rstrip()


def heat_grid(hm: Heatmap) -> list[str]:
    """The calendar: a month row, then one row per weekday (Monday first), then a legend."""
    lines = [month_row(hm)]
    for row in range(7):
        cells = [" " if (cell := week[row]) is None else HEAT_GLYPHS[cell.level] for week in hm.weeks]
        lines.append(f"{WEEKDAYS[row]} " + " ".join(cells))
    lines.append("    less " + " ".join(HEAT_GLYPHS) + " more")
    return lines
