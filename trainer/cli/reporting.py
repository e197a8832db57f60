"""`drill report`: progress in text, markdown, HTML or JSON. Torch-free and fast.

The numbers come from trainer.reports (pure); this module reads the store and
the catalogue, picks the renderer and writes the result. ``now`` and ``local_zone``
are the clock and the time zone; tests replace them with fixed ones.
"""
from __future__ import annotations

import json
import re
import sys
from dataclasses import replace
from datetime import date, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Optional

import typer

from grader.errors import UsageError
from trainer.catalogue_cache import load_catalogue
from trainer.cli.app import app, emit, no_color
from trainer.schedule.due import card_dues
from trainer.reports.html import render_html
from trainer.reports.md import render_md
from trainer.reports.scheduler import scheduler_section
from trainer.reports.text import render_text
from trainer.reports import Report, build_report, drill_infos, to_dict
from trainer.clock import utc_now
from trainer.store import database_exists, open_store

FORMATS = ("text", "md", "html", "json")
_RELATIVE = re.compile(r"^(\d{1,4})([dw])$")


def now() -> datetime:
    return utc_now()


def local_zone() -> tzinfo:
    return datetime.now().astimezone().tzinfo or timezone.utc


def parse_since(text: str, today: date) -> date:
    """YYYY-MM-DD, an ISO datetime, or a span back from today: 30d, 6w."""
    text = text.strip()
    m = _RELATIVE.fullmatch(text)
    if m:
        n = int(m.group(1)) * (7 if m.group(2) == "w" else 1)
        return today - timedelta(days=n)
    try:
        return date.fromisoformat(text)
    except ValueError:
        pass
    try:
        return datetime.fromisoformat(text).date()
    except ValueError:
        raise ValueError(f"--since {text!r} is not a date; use YYYY-MM-DD, or 30d / 6w for a span back "
                         f"from today") from None


def gather(moment: datetime, tz: tzinfo, since: date | None) -> Report:
    """Read the store (without creating it) and the catalogue, and compute the report."""
    specs = load_catalogue().specs
    infos = drill_infos(specs.values())
    attempts, dues, recall, sessions, section = [], [], {}, [], None
    if database_exists():
        with open_store(clock=lambda: moment) as store:
            attempts = store.attempts()
            dues = card_dues(store, specs)
            recall = store.retrievabilities(moment)
            sessions = store.sessions()
            section = scheduler_section(store.reviews(), store.fitted(), store.settings().retention, moment)
    return replace(build_report(attempts, dues, recall, infos, moment, tz, since, sessions), scheduler=section)


def render(report: Report, fmt: str, color: bool = False, width: int = 100) -> str:
    if fmt == "json":
        return json.dumps(to_dict(report), indent=2) + "\n"
    if fmt == "md":
        return render_md(report)
    if fmt == "html":
        return render_html(report)
    return render_text(report, color=color, width=width)


def terminal_width() -> int:
    """The report's width: the terminal's (never more than 140), so no line is hard-wrapped by it;
    at least 40, below which a bar or a table cannot say anything."""
    from trainer.text.fold import terminal_width as columns

    return max(40, min(140, columns()))


@app.command("report")
def report_command(
    since: Optional[str] = typer.Option(None, "--since", metavar="DATE",
                                        help="only history from this day on: YYYY-MM-DD, or 30d / 6w back"),
    fmt: str = typer.Option("text", "--format", "-f", metavar="FORMAT", help="text, md, html or json"),
    output: Optional[Path] = typer.Option(None, "--output", "-o", metavar="FILE",
                                          help="write to FILE instead of the terminal"),
) -> None:
    """Progress: mastery per topic, streak, practice calendar, time-to-solve trend,
    first-try rate, frequent mistakes, reviews due, the weakest drills and mock scores."""
    fmt = fmt.lower()
    if fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    moment, tz = now(), local_zone()
    start = None
    if since is not None:
        try:
            start = parse_since(since, moment.astimezone(tz).date())
        except ValueError as exc:
            raise UsageError(str(exc))
    if output is not None and output.is_dir():
        raise UsageError(f"{output} is a folder; give a file name for the report")
    report = gather(moment, tz, start)
    color = output is None and fmt == "text" and not no_color() and sys.stdout.isatty()
    text = render(report, fmt, color=color, width=terminal_width() if output is None else 100)
    emit(text, output, f"the {fmt} report")
