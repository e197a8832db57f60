"""Progress commands: the no-argument status, export, import, reset and restore.

Everything here is torch-free and fast. Store problems (damaged file, newer
schema, read-only home, full disk) arrive as ``StoreError`` and leave as one
line on stderr and a non-zero exit status (``store_errors``); other command
modules may use ``store_errors`` around their own store calls.
"""
from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from datetime import date, datetime, time, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Any, Iterator, Optional

import typer

from trainer.cli.app import app, usage_error
from trainer.files import write_atomically
from trainer.markup import printable
from trainer.plans import PlanError, StudyPlan, load_plan, next_new_drills
from trainer.reports import plural
from trainer.scheduling import utc_now
from trainer.store import (
    EXPORT_FORMAT,
    DrillSummary,
    StoreError,
    database_exists,
    list_backups,
    open_store,
    restore_backup,
)


@contextmanager
def store_errors() -> Iterator[None]:
    """Turn a StoreError or PlanError into `drill: message` on stderr and its exit status."""
    try:
        yield
    except StoreError as exc:
        typer.echo(f"drill: {printable(exc.message)}", err=True)
        raise typer.Exit(exc.exit_code) from None
    except PlanError as exc:
        typer.echo(f"drill: {printable(exc.message)}", err=True)
        raise typer.Exit(1) from None


def _local_now() -> datetime:
    return utc_now().astimezone()


def _end_of_day(day: date, tz: tzinfo) -> datetime:
    return datetime.combine(day + timedelta(days=1), time.min, tz)


def known_drill_ids(plan: StudyPlan | None = None) -> set[str]:
    """The plan's drill ids, plus the catalogue's when the grader's loader is available."""
    ids = set((plan or load_plan()).order)
    try:
        from grader.spec import load_catalogue
    except ImportError:
        return ids
    return ids | set(load_catalogue().specs)


# ---------------------------------------------------------------- status


@app.callback(invoke_without_command=True)
def status(ctx: typer.Context) -> None:
    """A terminal trainer for the tensor-shape questions of ML coding interviews.

    Run with no command for a short status: drills due today, the streak and
    the next suggested command."""
    if ctx.invoked_subcommand is not None:
        return
    with store_errors():
        for line in status_lines(_local_now()):
            typer.echo(line)


def status_lines(now: datetime) -> list[str]:
    """The status text for ``now`` (an aware local time); never creates the database."""
    tz = now.tzinfo or timezone.utc
    today = now.date()
    summaries: dict[str, DrillSummary] = {}
    due: list[str] = []
    streak = 0
    limit = None
    plan_name = "default"
    if database_exists():
        with open_store() as store:
            due = store.due(_end_of_day(today, tz))
            summaries = store.drill_summaries()
            streak = store.streak(today, tz)
            settings = store.settings()
            limit, plan_name = settings.daily_new_limit, settings.plan
    plan = load_plan(plan_name)
    if limit is None:
        from trainer.store import SETTING_DEFAULTS

        limit = int(SETTING_DEFAULTS["daily_new_limit"])
    new = next_new_drills(plan, summaries, today, limit, tz=tz)
    lines = [
        f"Due today: {len(due)}" + (f" ({_short_list(due)})" if due else ""),
        f"New today: {len(new)}" + (f" ({_short_list(new)})" if new else ""),
        f"Streak: {streak} day{'s' if streak != 1 else ''}",
    ]
    if not summaries:
        lines.insert(0, "No progress recorded yet.")
    if due:
        suggestion = "drill warmup"
    elif new:
        suggestion = f"drill solve {new[0]}"
    else:
        upcoming = sorted((s.due, d) for d, s in summaries.items() if s.due is not None)
        if upcoming:
            lines.append(f"Next review: {upcoming[0][1]} on {upcoming[0][0].astimezone(tz):%Y-%m-%d %H:%M}")
        suggestion = "drill mock"
    lines.append(f"Next: {suggestion}")
    return lines


def _short_list(ids: list[str], shown: int = 5) -> str:
    head = ", ".join(ids[:shown])
    return head + (f", +{len(ids) - shown} more" if len(ids) > shown else "")


# ---------------------------------------------------------------- export / import


def _empty_export() -> dict[str, Any]:
    return {"format": EXPORT_FORMAT, "exported_at": utc_now().isoformat(),
            "attempts": [], "cards": [], "sessions": []}


@app.command("export")
def export_command(
    file: str = typer.Argument(..., metavar="FILE", help="Where to write the JSON ('-' for stdout)."),
) -> None:
    """Write all progress (attempts, cards, sessions) to FILE as JSON."""
    with store_errors():
        if database_exists():
            with open_store() as store:
                data = store.export()
        else:
            data = _empty_export()
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    if file == "-":
        sys.stdout.write(text)
        return
    target = Path(file).expanduser()
    try:
        write_atomically(target, text)
    except OSError as exc:
        typer.echo(f"drill: cannot write {printable(target)}: {exc.strerror or exc}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"Exported {plural(len(data['attempts']), 'attempt')}, {plural(len(data['cards']), 'card')} and "
               f"{plural(len(data['sessions']), 'session')} to {printable(target)}.")


@app.command("import")
def import_command(
    file: str = typer.Argument(..., metavar="FILE", help="A file written by `drill export` ('-' for stdin)."),
) -> None:
    """Merge progress from FILE (written by `drill export`); attempts already present are skipped."""
    from grader.userfile import IMPORT_LIMIT, UnreadableFile, read_bytes, read_stream

    source = "stdin" if file == "-" else printable(file)
    try:
        if file == "-":
            if sys.stdin is None:
                usage_error("cannot read stdin: it is closed")
            raw = read_stream(sys.stdin.buffer, IMPORT_LIMIT)
        else:
            raw = read_bytes(Path(file).expanduser(), IMPORT_LIMIT)
        text = raw.decode("utf-8")
    except UnreadableFile as exc:
        usage_error(str(exc))
    except UnicodeDecodeError as exc:
        usage_error(f"cannot read {source}: it is not UTF-8 text (byte {exc.start})")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        usage_error(f"refusing to import {source}: not JSON ({exc.msg} at line {exc.lineno}). "
                    f"Nothing was imported.")
    except RecursionError:
        usage_error(f"refusing to import {source}: the JSON is nested too deeply. Nothing was imported.")
    except (ValueError, MemoryError) as exc:
        usage_error(f"refusing to import {source}: {str(exc).split(':')[0][:80]}. Nothing was imported.")
    with store_errors(), open_store() as store:
        result = store.import_(data, source=source)
    typer.echo(f"Imported {result.attempts_added} attempts ({result.attempts_skipped} already present, "
               f"skipped), {result.sessions_added} sessions, {result.cards_updated} cards updated.")


# ---------------------------------------------------------------- reset / restore


def _confirm(question: str) -> bool:
    try:
        return typer.confirm(question, default=False)
    except typer.Abort:
        return False


@app.command("reset")
def reset_command(
    drill_id: Optional[str] = typer.Argument(None, metavar="[ID]", help="Forget only this drill."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask (for scripts)."),
) -> None:
    """Forget progress: one drill's attempts and schedule, or everything (asks first)."""
    with store_errors():
        if not database_exists():
            if drill_id is not None and drill_id not in known_drill_ids():
                usage_error(f"unknown drill id {drill_id!r}; see `drill list`")
            typer.echo("No progress recorded yet; nothing to reset.")
            return
        with open_store() as store:
            if drill_id is None:
                counts = store.counts()
                n_attempts, what = counts["attempts"], "ALL progress"
                n_extra = f", {plural(counts['cards'], 'schedule')} and {plural(counts['sessions'], 'session')}"
            else:
                n_attempts = len(store.attempts(drill=drill_id))
                has_card = store.card(drill_id) is not None
                if n_attempts == 0 and not has_card:
                    if drill_id not in known_drill_ids():
                        usage_error(f"unknown drill id {drill_id!r}; see `drill list`")
                    typer.echo(f"No progress recorded for {drill_id}; nothing to reset.")
                    return
                what, n_extra = f"progress on {drill_id}", " and its schedule"
            if not yes and not _confirm(f"Forget {what} ({plural(n_attempts, 'attempt')}{n_extra})?"):
                typer.echo("Nothing was changed.")
                raise typer.Exit(1)
            result = store.reset(drill_id)
    typer.echo(f"Forgot {plural(result.attempts_removed, 'attempt')}, {plural(result.cards_removed, 'schedule')}"
               + (f" and {plural(result.sessions_removed, 'session')}" if drill_id is None else "") + ".")
    if result.backup is not None:
        typer.echo(f"A backup was saved first: {printable(result.backup)} (undo with `drill restore {printable(result.backup)}`).")


@app.command("restore")
def restore_command(
    backup: Optional[Path] = typer.Argument(None, metavar="[BACKUP]",
                                            help="A backup file (default: the newest)."),
    list_only: bool = typer.Option(False, "--list", help="List the backups and exit."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask (for scripts)."),
) -> None:
    """Replace the progress database with a backup from DRILL_HOME/backups (the current
    file is kept beside it as progress.db.before-restore-<time>)."""
    with store_errors():
        backups = list_backups()
        if list_only:
            for path in backups:
                typer.echo(str(path))
            if not backups:
                typer.echo("No backups yet.")
            return
        chosen = backup or (backups[0] if backups else None)
        if chosen is None:
            typer.echo("drill: no backups yet; nothing to restore.", err=True)
            raise typer.Exit(1)
        if not chosen.is_file():
            usage_error(f"no backup file {chosen}")
        if not yes and not _confirm(f"Replace the progress database with {chosen}?"):
            typer.echo("Nothing was changed.")
            raise typer.Exit(1)
        restored, kept = restore_backup(backup=chosen)
        with open_store() as store:
            n = store.counts()["attempts"]
    typer.echo(f"Restored {printable(restored)} ({plural(n, 'attempt')}).")
    if kept is not None:
        typer.echo(f"The previous file was kept as {printable(kept)}.")


# ---------------------------------------------------------------- settings


@app.command("settings")
def settings_command(
    key: Optional[str] = typer.Argument(None, metavar="[KEY]",
                                        help="retention, daily_new_limit, vi_mode, plan, ..."),
    value: Optional[str] = typer.Argument(None, metavar="[VALUE]", help="the new value (JSON or text)"),
) -> None:
    """Show the settings, or set one: `drill settings retention 0.85`."""
    with store_errors():
        if value is None:
            if not database_exists():
                from trainer.store import SETTING_DEFAULTS

                current: dict[str, Any] = dict(SETTING_DEFAULTS)
            else:
                with open_store() as store:
                    s = store.settings()
                current = {"retention": s.retention, "daily_new_limit": s.daily_new_limit,
                           "vi_mode": s.vi_mode, "plan": s.plan, **s.extra}
            shown = current if key is None else {key: current.get(key)}
            for k, v in shown.items():
                typer.echo(f"{printable(k)} = {json.dumps(v)}")
            return
        try:
            parsed: Any = json.loads(value)
        except json.JSONDecodeError:
            parsed = value
        if key == "plan":
            load_plan(str(parsed))
        with open_store() as store:
            try:
                store.set_setting(key, parsed)
            except ValueError as exc:
                usage_error(str(exc))
    typer.echo(f"{printable(key)} = {json.dumps(parsed)}")
