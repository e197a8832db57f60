"""`drill team board` in text, markdown and HTML.

Member names come from results files other people wrote: they reach the page
only through ``md_text`` / ``html_text`` (and rich ``Text``, which never reads
markup), so `<script>`, `|` or `[x](y)` render as the characters they are.
"""
from __future__ import annotations

from rich.table import Table
from rich.text import Text

from trainer.markup import html_text as esc
from trainer.markup import md_code, md_text, printable
from trainer.report_html import page
from trainer.report_svg import hbar_chart
from trainer.report_text import make_console
from trainer.reports import mmss
from trainer.team import Board, DrillResult

_SHORT = {"failed": "failed", "skipped": "skipped", "quit": "quit", "timeout": "time up", "not reached": "—"}


def cell_text(d: DrillResult | None) -> str:
    if d is None:
        return "—"
    if d.solved:
        return mmss(d.seconds)
    return _SHORT.get(d.status, d.status)


def _title(board: Board, title: str) -> str:
    """The session's title (from a file someone else wrote: control characters made visible)."""
    return printable(title) if title else "Team board"


def _notes(board: Board, skipped: list[str]) -> list[str]:
    notes = []
    if "files" in board.modes:
        notes.append("results from --file runs show grading times, not solving times")
    notes += [w[0].upper() + w[1:] for w in skipped]
    return notes


# -------------------------------------------------------------------- text


def render_board_text(board: Board, title: str = "", skipped: list[str] | None = None, color: bool = False,
                      width: int = 100) -> str:
    console = make_console(color, width)
    if not board.rows:
        console.print(Text("No results yet. Each member runs `drill team run SESSION.yaml --name NAME "
                           "--results DIR`; their file lands in DIR.", style="bold"))
        return console.file.getvalue()
    table = Table(title=_title(board, title), title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("member")
    table.add_column("solved", justify="right")
    table.add_column("time solved", justify="right")
    for drill in board.drills:
        table.add_column(drill, justify="right", no_wrap=True)
    for row in board.rows:
        m = row.member
        cells = []
        for drill in board.drills:
            d = row.cell(drill)
            style = "green" if d is not None and d.solved else "dim"
            cells.append(Text(cell_text(d), style=style))
        table.add_row(str(row.rank), Text(m.name, style="bold" if row.rank == 1 else ""),
                      f"{m.solved}/{len(board.drills)}", mmss(m.solved_seconds), *cells)
    parts: list[object] = [table]
    fastest = Table(title="Per drill", title_justify="left", box=None)
    for name in ("drill", "solved by", "fastest", "by"):
        fastest.add_column(name)
    for c in board.columns:
        fastest.add_row(c.drill, f"{c.solved_by}/{len(board.rows)}", mmss(c.fastest),
                        Text(", ".join(c.fastest_names)))
    parts += [Text(""), fastest]
    if board.mistakes:
        mistakes = Table(title="Mistakes most common in the team", title_justify="left", box=None)
        for name in ("trap", "members", "times", "in"):
            mistakes.add_column(name)
        for m in board.mistakes:
            mistakes.add_row(Text(m.trap), str(m.members), str(m.count), Text(", ".join(m.drills)))
        parts += [Text(""), mistakes]
    for note in _notes(board, skipped or []):
        parts.append(Text(f"note: {note}", style="dim"))
    for part in parts:
        console.print(part)
    return console.file.getvalue()


# ---------------------------------------------------------------- markdown


def render_board_md(board: Board, title: str = "", skipped: list[str] | None = None) -> str:
    lines = [f"# {md_text(_title(board, title))}", ""]
    if not board.rows:
        return "\n".join(lines + ["No results yet."]) + "\n"
    head = ["#", "member", "solved", "time solved"] + [md_code(d) for d in board.drills]
    lines += ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    for row in board.rows:
        m = row.member
        cells = [str(row.rank), md_text(m.name), f"{m.solved}/{len(board.drills)}", mmss(m.solved_seconds)]
        cells += [cell_text(row.cell(d)) for d in board.drills]  # times and fixed words only
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "## Per drill", "", "| drill | solved by | fastest | by |", "|---|---|---|---|"]
    for c in board.columns:
        lines.append(f"| {md_code(c.drill)} | {c.solved_by}/{len(board.rows)} | {mmss(c.fastest)} | "
                     f"{md_text(', '.join(c.fastest_names)) or '—'} |")
    if board.mistakes:
        lines += ["", "## Mistakes most common in the team", "", "| trap | members | times | in |", "|---|---|---|---|"]
        for m in board.mistakes:
            lines.append(f"| {md_code(m.trap)} | {m.members} | {m.count} | "
                         f"{', '.join(md_code(d) for d in m.drills)} |")
    notes = _notes(board, skipped or [])
    if notes:
        lines += [""] + [f"_{md_text(n)}_" for n in notes]
    return "\n".join(lines) + "\n"


# -------------------------------------------------------------------- html


BOARD_CSS = """
.board td.t{font-variant-numeric:tabular-nums;text-align:right}
.board th.t{text-align:right}
.board tr.first td{background:#fefce8}
.solved{color:#15803d;font-weight:600}.unsolved{color:#9ca3af}
.rank{font-weight:700;color:#6b7280}
th code{text-transform:none;letter-spacing:0}
"""


def render_board_html(board: Board, title: str = "", skipped: list[str] | None = None) -> str:
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
                    f"<td><b>{esc(m.name)}</b></td><td class=\"t\">{m.solved}/{len(board.drills)}</td>"
                    f'<td class="t">{esc(mmss(m.solved_seconds))}</td>{cells}</tr>')
    body.append('<section class="panel"><h2>Leaderboard</h2><table class="board"><tr><th>#</th><th>member</th>'
                f'<th class="t">solved</th><th class="t">time solved</th>{head}</tr>{"".join(rows)}</table></section>')
    solved_bars = [(r.member.name, float(r.member.solved), f"{r.member.solved} solved · {mmss(r.member.solved_seconds)}")
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
    for note in _notes(board, skipped or []):
        body.append(f'<p class="muted">{esc(note)}</p>')
    return page(heading, "".join(body))
