"""`drill team board` in text, markdown and HTML.

Member names come from results files other people wrote: they reach the page
only through ``md_text`` / ``html_text`` (and rich ``Text``, which never reads
markup), so `<script>`, `|` or `[x](y)` render as the characters they are.
"""
from __future__ import annotations

from pathlib import PurePath

from rich.table import Table
from rich.text import Text

from trainer.text.markup import html_text as esc
from trainer.text.markup import md_code, md_text, printable
from trainer.reports import mmss
from trainer.reports.html import page
from trainer.reports.svg import hbar_chart
from trainer.reports.text import console_text, make_console, make_table
from trainer.team.board import Board, BoardRow
from trainer.team.results import DrillResult

_SHORT = {"failed": "failed", "skipped": "skipped", "quit": "quit", "timeout": "time up", "not reached": "—"}
UNTIMED = "untimed"
UNTIMED_NOTE = ("untimed: graded from files after the fact (drill team run --file), so there is no solving "
                "time; an untimed run ranks after every timed run with as many solved, and never counts as fastest.")


def cell_text(d: DrillResult | None) -> str:
    """A drill's cell: the solving time of a pass, "✓ untimed" for an untimed one, else the status."""
    if d is None:
        return "—"
    if d.solved:
        return mmss(d.seconds) if d.timed else f"✓ {UNTIMED}"
    return _SHORT.get(d.status, d.status)


def file_name(source: str) -> str:
    """A results file as the board names it: its name in the folder the board reads."""
    return PurePath(source).name or source


def time_text(row: BoardRow) -> str:
    """The time on the solved drills: "untimed" for an untimed run, a dash when nothing was solved."""
    if not row.run.timed:
        return UNTIMED
    return mmss(row.run.solved_seconds)


def runs_text(row: BoardRow) -> str:
    """How many runs the member made (the board shows the best), and how many were left out."""
    text = f"best of {row.runs}" if row.runs > 1 else "1"
    return text + (f" ({row.flagged_runs} not ranked)" if row.flagged_runs else "")


def _title(board: Board, title: str) -> str:
    """The session's title (from a file someone else wrote: control characters made visible)."""
    return printable(title) if title else "Team board"


def _notes(board: Board, skipped: list[str]) -> list[str]:
    notes = []
    if board.untimed:
        notes.append(UNTIMED_NOTE[0].upper() + UNTIMED_NOTE[1:])
    if any(row.runs > 1 for row in board.rows):
        notes.append("A member who ran the session more than once is ranked by their best run.")
    notes += [w[0].upper() + w[1:] for w in skipped]
    return notes


# -------------------------------------------------------------------- text


def _leaderboard(board: Board, title: str, drills: bool) -> Table:
    table = make_table(_title(board, title))
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("member", min_width=10)
    table.add_column("solved", justify="right", no_wrap=True)
    table.add_column("time solved", justify="right", no_wrap=True)
    table.add_column("runs", justify="right", no_wrap=True)
    for drill in board.drills if drills else ():
        table.add_column(drill, justify="right", no_wrap=True)
    for row in board.rows:
        cells = [_cell(row.cell(drill)) for drill in board.drills] if drills else []
        table.add_row(str(row.rank), Text(row.member.name, style="bold" if row.rank == 1 else ""),
                      f"{row.run.solved}/{len(board.drills)}", time_text(row), runs_text(row), *cells)
    return table


def _cell(d: DrillResult | None) -> Text:
    return Text(cell_text(d), style="green" if d is not None and d.solved else "dim")


def _cells_by_drill(board: Board) -> Text:
    """Each drill on its own line, every ranked member's result on it, in rank order."""
    text = Text("Each drill", style="bold")
    for drill in board.drills:
        text.append(f"\n{drill}: ", style="bold")
        for i, row in enumerate(board.rows):
            text.append(("" if i == 0 else " · ") + row.member.name + " ")
            text.append_text(_cell(row.cell(drill)))
    return text


def render_board_text(board: Board, title: str = "", skipped: list[str] | None = None, color: bool = False,
                      width: int = 100, landed: list[str] | None = None) -> str:
    console = make_console(color, width)
    if not board.rows:
        console.print(Text("No results yet. Each member runs `drill team run SESSION.yaml --name NAME "
                           "--results DIR`; their file lands in DIR.", style="bold"))
        return console_text(console)
    table = _leaderboard(board, title, drills=True)
    narrow = console.measure(table, options=console.options.update_width(10_000)).maximum > width
    if narrow:  # the drills go below, one line each, instead of one column each
        table = _leaderboard(board, title, drills=False)
    parts: list[object] = [table]
    if narrow:
        parts += [Text(""), _cells_by_drill(board)]
    if board.flagged:
        flagged = make_table("Not ranked")
        for name in ("member", "file", "why"):
            flagged.add_column(name)
        for f in board.flagged:
            flagged.add_row(Text(f.name), Text(printable(file_name(f.source))), Text(printable(f.reason)))
        parts += [Text(""), flagged]
    fastest = make_table("Per drill")
    for name in ("drill", "solved by", "fastest", "by"):
        fastest.add_column(name)
    for c in board.columns:
        fastest.add_row(c.drill, f"{c.solved_by}/{len(board.rows)}", mmss(c.fastest),
                        Text(", ".join(c.fastest_names)))
    parts += [Text(""), fastest]
    if board.mistakes:
        mistakes = make_table("Mistakes most common in the team")
        for name in ("trap", "members", "times", "in"):
            mistakes.add_column(name)
        for m in board.mistakes:
            mistakes.add_row(Text(m.trap), str(m.members), str(m.count), Text(", ".join(m.drills)))
        parts += [Text(""), mistakes]
    if landed:
        parts += [Text(""), Text("Landed (git log)", style="bold")] + [Text(printable(line)) for line in landed]
    for note in _notes(board, skipped or []):
        parts.append(Text(f"note: {note}", style="dim"))
    for part in parts:
        console.print(part)
    return console_text(console)


# ---------------------------------------------------------------- markdown


def render_board_md(board: Board, title: str = "", skipped: list[str] | None = None,
                    landed: list[str] | None = None) -> str:
    lines = [f"# {md_text(_title(board, title))}", ""]
    if not board.rows:
        return "\n".join(lines + ["No results yet."]) + "\n"
    head = ["#", "member", "solved", "time solved", "runs"] + [md_code(d) for d in board.drills]
    lines += ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for row in board.rows:
        m = row.member
        cells = [str(row.rank), md_text(m.name), f"{row.run.solved}/{len(board.drills)}", time_text(row),
                 runs_text(row)]
        cells += [cell_text(row.cell(d)) for d in board.drills]  # times and fixed words only
        lines.append("| " + " | ".join(cells) + " |")
    if board.flagged:
        lines += ["", "## Not ranked", "", "| member | file | why |", "|---|---|---|"]
        lines += [f"| {md_text(f.name)} | {md_text(file_name(f.source))} | {md_text(f.reason)} |"
                  for f in board.flagged]
    lines += ["", "## Per drill", "", "| drill | solved by | fastest | by |", "|---|---|---|---|"]
    for c in board.columns:
        lines.append(f"| {md_code(c.drill)} | {c.solved_by}/{len(board.rows)} | {mmss(c.fastest)} | "
                     f"{md_text(', '.join(c.fastest_names)) or '—'} |")
    if board.mistakes:
        lines += ["", "## Mistakes most common in the team", "", "| trap | members | times | in |", "|---|---|---|---|"]
        for mistake in board.mistakes:
            lines.append(f"| {md_code(mistake.trap)} | {mistake.members} | {mistake.count} | "
                         f"{', '.join(md_code(d) for d in mistake.drills)} |")
    if landed:
        lines += ["", "## Landed (git log)", ""] + [f"- {md_text(line)}" for line in landed]
    notes = _notes(board, skipped or [])
    if notes:
        for n in notes:
            lines += ["", f"_{md_text(n)}_"]
    return "\n".join(lines) + "\n"


# -------------------------------------------------------------------- html


BOARD_CSS = """
.board td.t{font-variant-numeric:tabular-nums;text-align:right}
.board th.t{text-align:right}
.board tr.first td{background:#fefce8}
.solved{color:#15803d;font-weight:600}.unsolved{color:#9ca3af}
.rank{font-weight:700;color:#6b7280}
.flagged h2{color:#b45309}
th code{text-transform:none;letter-spacing:0}
"""


def render_board_html(board: Board, title: str = "", skipped: list[str] | None = None,
                      landed: list[str] | None = None) -> str:
    heading = _title(board, title)
    body = [f"<style>{BOARD_CSS}</style><h1>{esc(heading)}</h1>"]
    if not board.rows:
        body.append('<section class="panel"><p>No results yet.</p></section>')
        return page(heading, "".join(body))
    body.append(f'<p class="sub">{len(board.rows)} member{"s" if len(board.rows) != 1 else ""} · '
                f'{len(board.drills)} drill{"s" if len(board.drills) != 1 else ""}'
                + (f" · session <code>{esc(board.session)}</code>" if board.session else "") + "</p>")
    head = "".join(f'<th class="t"><code>{esc(d)}</code></th>' for d in board.drills)
    rows = []
    for row in board.rows:
        m = row.member
        cells = "".join(
            f'<td class="t {"solved" if (d := row.cell(drill)) is not None and d.solved else "unsolved"}">'
            f"{esc(cell_text(d))}</td>" for drill in board.drills)
        rows.append(f'<tr class="{"first" if row.rank == 1 else ""}"><td class="rank">{row.rank}</td>'
                    f"<td><b>{esc(m.name)}</b></td><td class=\"t\">{row.run.solved}/{len(board.drills)}</td>"
                    f'<td class="t">{esc(time_text(row))}</td><td class="t">{esc(runs_text(row))}</td>{cells}</tr>')
    body.append('<section class="panel"><h2>Leaderboard</h2><table class="board"><tr><th>#</th><th>member</th>'
                f'<th class="t">solved</th><th class="t">time solved</th><th class="t">runs</th>{head}</tr>'
                f'{"".join(rows)}</table></section>')
    if board.flagged:
        listing = "".join(f"<tr><td><b>{esc(f.name)}</b></td><td><code>{esc(file_name(f.source))}</code></td>"
                          f"<td>{esc(f.reason)}</td></tr>" for f in board.flagged)
        body.append('<section class="panel flagged"><h2>Not ranked</h2><table><tr><th>member</th><th>file</th>'
                    f"<th>why</th></tr>{listing}</table></section>")
    solved_bars = [(r.member.name, float(r.run.solved), f"{r.run.solved} solved · {time_text(r)}")
                   for r in board.rows]
    body.append('<div class="grid"><section class="panel"><h2>Solved</h2>'
                + hbar_chart(solved_bars, width=470, colour="#16a34a", label_w=150) + "</section>")
    per = "".join(f"<tr><td><code>{esc(c.drill)}</code></td><td>{c.solved_by}/{len(board.rows)}</td>"
                  f"<td>{esc(mmss(c.fastest))}</td><td>{esc(', '.join(c.fastest_names)) or '—'}</td></tr>"
                  for c in board.columns)
    body.append('<section class="panel"><h2>Per drill</h2><table><tr><th>drill</th><th>solved by</th>'
                f"<th>fastest</th><th>by</th></tr>{per}</table></section></div>")
    if board.mistakes:
        bars = [(m.trap, float(m.members), f"{m.members} member{'s' if m.members != 1 else ''} · {m.count}×")
                for m in board.mistakes[:8]]
        listing = "".join(f"<tr><td><code>{esc(m.trap)}</code></td><td>{m.members}</td><td>{m.count}</td>"
                          f"<td>{' '.join('<code>drill solve ' + esc(d) + '</code>' for d in m.drills)}</td></tr>"
                          for m in board.mistakes)
        body.append('<section class="panel"><h2>Mistakes most common in the team</h2>'
                    + hbar_chart(bars, width=560, colour="#dc2626", label_w=200)
                    + f"<table><tr><th>trap</th><th>members</th><th>times</th><th>practise</th></tr>{listing}"
                    "</table></section>")
    if landed:
        items = "".join(f"<li>{esc(line)}</li>" for line in landed)
        body.append(f'<section class="panel"><h2>Landed (git log)</h2><ul>{items}</ul></section>')
    for note in _notes(board, skipped or []):
        body.append(f'<p class="muted">{esc(note)}</p>')
    return page(heading, "".join(body))
