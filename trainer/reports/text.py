"""`drill report` in the terminal: rich tables plus unicode charts.

The glyphs carry the meaning (░▒▓█ for the heatmap levels, filled against
light-shade bars), and colour only adds to them, so the report reads the same
under NO_COLOR or in a file.
"""
from __future__ import annotations

import io
from dataclasses import replace

from rich import box
from rich.console import Console, Group, JustifyMethod
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from trainer.reports import (
    MOCK_SCORE_FORMULA,
    Heatmap,
    Report,
    best_text,
    duration,
    first_try_text,
    mmss,
    percent,
    plural,
    untimed_note,
)
from trainer.reports.charts import HEAT_GLYPHS, WEEKDAYS, bar, month_row, sparkline
from trainer.reports.words import VARIANTS_NOTE, practise_commands, values_text, variant_command, variant_tally

HEAT_STYLES = ("grey50", "green4", "green3", "green1", "bold bright_green")


def make_console(color: bool, width: int = 100) -> Console:
    """A console writing into a string buffer (read it back with `console_text`)."""
    return Console(file=io.StringIO(), force_terminal=color, no_color=not color, width=width,
                   color_system="standard" if color else None, highlight=False, emoji=False,
                   legacy_windows=False)


def console_text(console: Console) -> str:
    """What a `make_console` console has printed so far."""
    buffer = console.file
    assert isinstance(buffer, io.StringIO), "not a make_console console"
    return buffer.getvalue()


def make_table(title: str) -> Table:
    """The one table style of the text report and the team board: a bold title on the
    left, a rule under the header, no outer box. The title is plain text (never markup)."""
    return Table(title=Text(title, style="bold"), title_justify="left", box=box.SIMPLE_HEAD, show_edge=False,
                 pad_edge=False)


def fit_weeks(hm: Heatmap, width: int) -> Heatmap:
    """The heatmap's most recent weeks that fit in ``width`` columns (two per week)."""
    room = max(4, (width - 6) // 2)
    return hm if len(hm.weeks) <= room else replace(hm, weeks=hm.weeks[-room:])


def _heatmap(report: Report, width: int) -> Text:
    hm = fit_weeks(report.heatmap, width)
    text = Text()
    text.append(month_row(hm) + "\n", style="dim")
    for row in range(7):
        text.append(f"{WEEKDAYS[row]} ", style="dim")
        for week in hm.weeks:
            cell = week[row]
            if cell is None:
                text.append("  ")
            else:
                text.append(HEAT_GLYPHS[cell.level], style=HEAT_STYLES[cell.level])
                text.append(" ")
        text.append("\n")
    text.append("    less ", style="dim")
    for level, glyph in enumerate(HEAT_GLYPHS):
        text.append(glyph + " ", style=HEAT_STYLES[level])
    text.append(f"more   {plural(hm.active_days, 'active day')}, busiest {plural(hm.max_count, 'attempt')}",
                style="dim")
    return text


def _mastery(report: Report, width: int = 100) -> Table:
    table = make_table("Mastery per topic (FSRS recall now)")
    longest = max((len(m.topic) for m in report.mastery), default=5)
    table.add_column("topic", no_wrap=True, min_width=longest)  # a topic's name is never cut
    table.add_column("", no_wrap=True)
    cells = max(6, min(24, width - longest - 26))  # the bar gives way on a narrow terminal
    table.add_column("mastery", justify="right")
    table.add_column("practised", justify="right")
    for m in report.mastery:
        style = "green" if m.mastery >= 0.7 else "cyan" if m.mastery >= 0.35 else "yellow"
        table.add_row(Text(m.topic), Text(bar(m.mastery, 1.0, cells), style=style), percent(m.mastery),
                      f"{m.practised}/{m.total}")
    return table


def _due(report: Report) -> Table:
    table = make_table("Reviews due in the next 14 days")
    table.add_column("day", no_wrap=True)
    table.add_column("", no_wrap=True)
    table.add_column("due", justify="right")
    top = max((d.count for d in report.due), default=0)
    for i, d in enumerate(report.due):
        label = ("today " if i == 0 else d.day.strftime("%a   ")) + d.day.strftime("%d %b")
        table.add_row(label, Text(bar(d.count, top, 20, empty=" "), style="magenta" if i == 0 else "blue"),
                      str(d.count))
    return table


def _trends(report: Report) -> Group | Table | Text:
    note = untimed_note(report.untimed)
    if not report.trends:
        return Text(f"Time to solve: no timed pass in this window yet. {note}".rstrip(), style="dim")
    table = make_table("Time to solve (passing attempts, oldest → newest)")
    columns: tuple[tuple[str, JustifyMethod], ...] = (("drill", "left"), ("trend", "left"), ("best", "right"),
                                                     ("latest", "right"), ("target", "right"), ("", "left"))
    for name, justify in columns:
        table.add_column(name, justify=justify, no_wrap=name != "drill")
    for t in report.trends:
        verdict = Text("on target", style="green") if t.on_target else \
            Text("over target", style="red") if t.on_target is False else Text("")
        table.add_row(Text(t.drill), Text(sparkline([p.seconds for p in t.points]), style="cyan"), mmss(t.best),
                      mmss(t.latest), mmss(t.target), verdict)
    return Group(table, Text(note, style="dim")) if note else table


def _mistakes(report: Report, width: int = 100) -> Table | Text:
    """Each trap, how often, what it means and the commands that meet it; on a narrow terminal the
    commands go under the meaning (a column of its own would squeeze the meaning to nothing)."""
    if not report.mistakes:
        return Text("Mistakes: no known trap matched in this window.", style="dim")
    narrow = width < 100
    table = make_table("Most frequent mistakes")
    table.add_column("trap", no_wrap=not narrow, overflow="fold")
    table.add_column("times", justify="right")
    table.add_column("what it means" + (" · practise" if narrow else ""), overflow="fold")
    if not narrow:
        table.add_column("practise", no_wrap=True)
    for m in report.mistakes:
        commands = "\n".join(practise_commands(m)[:3])
        if narrow:
            meaning = Text(m.message + "\n" if m.message else "")
            meaning.append(commands, style="bold")
            table.add_row(Text(m.trap), str(m.count), meaning)
        else:
            table.add_row(Text(m.trap), str(m.count), Text(m.message), Text(commands))
    return table


def _weakest(report: Report, width: int) -> Group | Table:
    """The weakest drills; a narrow terminal drops the topic, then the practise column
    (the command is then said once, under the table)."""
    wide, topic = width >= 112, width >= 90
    table = make_table("Weakest drills")
    columns: list[tuple[str, JustifyMethod]] = [("drill", "left"), ("topic", "left"), ("first try", "right"),
                                                ("passed", "right"), ("recall", "right"), ("best / target", "right"),
                                                ("practise", "left")]
    shown = [c for c in columns if (c[0] != "topic" or topic) and (c[0] != "practise" or wide)]
    for name, justify in shown:
        table.add_column(name, justify=justify, no_wrap=name != "topic")
    for w in report.weakest:
        cells: dict[str, Text | str] = {
            "drill": Text(w.drill), "topic": Text(w.topic), "first try": first_try_text(w),
            "passed": f"{w.passes}/{w.attempts}", "recall": percent(w.recall),
            "best / target": Text(best_text(w), style="" if w.passed else "yellow"),
            "practise": Text(w.command, style="bold")}
        table.add_row(*(cells[name] for name, _ in shown))
    if wide or not report.weakest:
        return table
    return Group(table, Text("Practise one with `drill solve DRILL`.", style="dim"))


def _variants(report: Report, width: int) -> Group | Text:
    """Per practised drill with variants, the values passed and failed; then the weakest values
    (a narrow terminal drops the practise column and says the command once, under the table)."""
    if not report.variants:
        return Text("Variants: no drill with variants practised yet.", style="dim")
    table = make_table("Variants per drill")
    for name in ("drill", "passed", "failed", "not yet"):  # a value too long for its cell folds, never cut
        table.add_column(name, no_wrap=name == "drill", overflow="fold")
    for d in report.variants:
        table.add_row(Text(d.drill), Text(values_text(d.passed), style="green"),
                      Text(values_text(d.failed), style="red" if d.failed else ""), Text(values_text(d.untried)))
    note = Text(VARIANTS_NOTE[0].upper() + VARIANTS_NOTE[1:] + ".", style="dim")
    if not report.weakest_variants:
        return Group(table, note, Text(""), Text("Weakest variants: none failed.", style="dim"))
    wide = width >= 120
    weak = make_table("Weakest variants")
    for name in ("drill", "variant", "results") + (("practise",) if wide else ()):
        weak.add_column(name, no_wrap=True)
    for v in report.weakest_variants:
        cells = [Text(v.drill), Text(v.label), Text(variant_tally(v))]
        weak.add_row(*cells, *([Text(variant_command(v), style="bold")] if wide else []))
    tail = [] if wide else [Text("Practise one with `drill solve DRILL --variant AXIS=VALUE`.", style="dim")]
    return Group(table, note, Text(""), weak, *tail)


def _mocks(report: Report) -> Group | Text:
    formula = Text(MOCK_SCORE_FORMULA[0].upper() + MOCK_SCORE_FORMULA[1:] + ".", style="dim")
    if not report.mocks:
        return Text("Mock interviews: none finished in this window yet (`drill mock`).", style="dim")
    table = make_table("Mock interview scores (oldest → newest)")
    columns: tuple[tuple[str, JustifyMethod], ...] = (("day", "left"), ("score", "right"), ("", "left"),
                                                     ("passed", "right"), ("minutes", "right"))
    for name, justify in columns:
        table.add_column(name, justify=justify, no_wrap=True)
    for m in report.mocks:
        table.add_row(m.at.strftime("%Y-%m-%d %H:%M"), str(m.score), Text(bar(m.score, 100, 20), style="cyan"),
                      f"{m.passed}/{m.total}", "—" if m.minutes is None else f"{m.minutes:g}")
    trend = Text("trend ")
    trend.append(sparkline([m.score for m in report.mocks]), style="cyan")
    trend.append(f"  latest {report.mocks[-1].score}, best {max(m.score for m in report.mocks)}")
    return Group(table, trend, formula)


def _scheduler(report: Report) -> list[Text]:
    from trainer.reports.scheduler import lines

    if report.scheduler is None:
        return []
    return [Text("Scheduler", style="bold"), Text("\n".join(lines(report.scheduler))), Text("")]


def _headline(report: Report) -> Text:
    t, ft = report.totals, report.first_try
    window = f"since {report.since.isoformat()}" if report.since else "all history"
    text = Text()
    text.append(f"Drill progress, {report.today.isoformat()}", style="bold")
    text.append(f"  ({window})\n", style="dim")
    text.append(f"streak {plural(report.streak, 'day')}", style="bold yellow")
    text.append(f" · mastery {percent(report.overall_mastery)}")
    text.append(f" · first try {percent(ft.rate)} ({ft.passes}/{ft.attempts})")
    text.append(f"\n{t.passes}/{t.attempts} attempts passed · {plural(t.drills, 'drill')} · {plural(t.days, 'day')} · "
                f"{duration(t.seconds)} practising", style="dim")
    return text


def _empty(report: Report) -> Panel:
    text = Text("No practice recorded yet. Your report fills in as you solve drills.\n"
                "A good first session:\n")
    for i, step in enumerate(report.next_steps, 1):
        text.append(f"  {i}. ")
        text.append(step + "\n", style="bold")
    return Panel(text, title="drill report", title_align="left", expand=False)


def render_text(report: Report, color: bool = False, width: int = 100) -> str:
    console = make_console(color, width)
    if report.empty:
        console.print(_empty(report))
        return console_text(console)
    parts = [
        _headline(report), Text(""),
        _mastery(report, width), Text(""),
        Text("Practice calendar", style="bold"), _heatmap(report, width), Text(""),
        _due(report), Text(""),
        *_scheduler(report),
        _trends(report), Text(""),
        _mistakes(report, width), Text(""),
        _weakest(report, width), Text(""),
        _variants(report, width), Text(""),
        _mocks(report), Text(""),
        Text("Next: " + " · ".join(report.next_steps), style="bold"),
    ]
    console.print(Group(*parts))
    return console_text(console)
