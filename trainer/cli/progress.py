"""Progress commands: the no-argument status, export, import, reset and restore.

Everything here is torch-free and fast. Store problems (damaged file, newer
schema, read-only home, full disk) arrive as ``StoreError`` and leave as one
line on stderr and a non-zero exit status at the CLI's one error edge
(trainer.cli.errors).
"""
from __future__ import annotations

import difflib
import json
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional

import typer

from grader.spec import unknown_drill_message
from grader.spec.userfile import IMPORT_LIMIT, UnreadableFile, decode_text, read_bytes, read_stream
from trainer.catalogue_cache import load_catalogue
from trainer.cli.app import app, usage_error
from trainer.cli.catalogue import complete_drill_id
from trainer.schedule.due import agenda_now, clock_time, short_list, when
from trainer.files import write_atomically
from trainer.text.markup import printable
from trainer.schedule.plans import PlanError, StudyPlan, load_plan
from trainer.reports import plural
from trainer.schedule.adapter import utc_now
from trainer.store import (
    EXPORT_FORMAT,
    SETTING_DEFAULTS,
    database_exists,
    list_backups,
    open_store,
    restore_backup,
)


def local_now() -> datetime:
    return utc_now().astimezone()


def known_drill_ids(plan: StudyPlan | None = None) -> set[str]:
    """The plan's drill ids, plus the catalogue's."""
    ids = set((plan or load_plan()).order)
    return ids | set(catalogue_ids())


# ---------------------------------------------------------------- status


def status_lines(now: datetime) -> list[str]:
    """The status text for ``now`` (an aware local time); never creates the database.
    What is due comes from trainer.schedule.due, the one answer shared with list, warmup and report."""
    agenda = agenda_now(catalogue_ids(), now)
    streak = 0
    has_progress = False
    if database_exists():
        with open_store() as store:
            streak = store.streak(now.date(), now.tzinfo or timezone.utc)
            counts = store.counts()
            has_progress = bool(counts["attempts"] or counts["cards"])
    due, new = list(agenda.due), list(agenda.new)
    lines = [
        f"Due now: {len(due)}" + (f" ({short_list(due)})" if due else ""),
        f"New today: {len(new)}" + (f" ({short_list(new)})" if new else ""),
        f"Streak: {streak} day{'s' if streak != 1 else ''}",
    ]
    if agenda.later_today:
        lines.insert(1, f"Later today: {len(agenda.later_today)} ("
                     + short_list([f"{d} at {clock_time(t, now)}" for d, t in agenda.later_today]) + ")")
    if not has_progress:
        lines.insert(0, "No progress recorded yet.")
    if due:
        suggestion = "drill warmup"
    elif new:
        suggestion = f"drill solve {new[0]}"
    else:
        if agenda.next_review is not None:
            drill, at = agenda.next_review
            lines.append(f"Next review: {drill} {when(at, now)}")
        suggestion = "drill warmup --more" if agenda.fresh or agenda.upcoming else "drill mock"
    lines.append(f"Next: {suggestion}")
    return lines


def catalogue_ids() -> list[str]:
    """The catalogue's ids, in catalogue order."""
    return list(load_catalogue().specs)


# ---------------------------------------------------------------- export / import


def _empty_export() -> dict[str, Any]:
    return {"format": EXPORT_FORMAT, "exported_at": utc_now().isoformat(),
            "attempts": [], "cards": [], "sessions": []}


@app.command("export")
def export_command(
    file: str = typer.Argument(..., metavar="FILE", help="Where to write the JSON ('-' for stdout)."),
) -> None:
    """Write all progress (attempts, cards, sessions) to FILE as JSON."""
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
    source = "stdin" if file == "-" else printable(file)
    try:
        if file == "-":
            if sys.stdin is None:
                usage_error("cannot read stdin: it is closed")
            raw = read_stream(sys.stdin.buffer, IMPORT_LIMIT)
        else:
            raw = read_bytes(Path(file).expanduser(), IMPORT_LIMIT)
        text = decode_text(raw, source)
    except UnreadableFile as exc:
        usage_error(f"{printable(exc)}. Nothing was imported.")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        usage_error(f"refusing to import {source}: not JSON ({exc.msg} at line {exc.lineno}). "
                    f"Nothing was imported.")
    except RecursionError:
        usage_error(f"refusing to import {source}: the JSON is nested too deeply. Nothing was imported.")
    except (ValueError, MemoryError) as exc:
        usage_error(f"refusing to import {source}: {str(exc).split(':')[0][:80]}. Nothing was imported.")
    with open_store() as store:
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
    drill_id: Optional[str] = typer.Argument(None, metavar="[ID]", help="Forget only this drill.",
                                             autocompletion=complete_drill_id),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask (for scripts)."),
) -> None:
    """Forget progress: one drill's attempts and schedule, or everything (asks first)."""
    if not database_exists():
        if drill_id is not None and drill_id not in known_drill_ids():
            usage_error(unknown_drill_message(drill_id, known_drill_ids()))
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
                    usage_error(unknown_drill_message(drill_id, known_drill_ids()))
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
        typer.echo(f"A backup was saved first: {printable(result.backup)} "
                   f"(undo with `drill restore {printable(result.backup)}`).")


@app.command("restore")
def restore_command(
    backup: Optional[Path] = typer.Argument(None, metavar="[BACKUP]",
                                            help="A backup file (default: the newest)."),
    list_only: bool = typer.Option(False, "--list", help="List the backups and exit."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask (for scripts)."),
) -> None:
    """Replace the progress database with a backup from DRILL_HOME/backups (the current
    file is kept beside it as progress.db.before-restore-<time>)."""
    backups = list_backups()
    if list_only:
        _list_backups(backups)
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


def _size(n: int) -> str:
    for unit, scale in (("MB", 1e6), ("KB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def _list_backups(backups: list[Path]) -> None:
    """`restore --list`: newest first, each with its date (local time), kind and size, and which
    one a bare `drill restore` takes."""
    from trainer.store.files import backup_kind, backup_time, latest_backup

    if not backups:
        typer.echo("No backups yet.")
        return
    default = latest_backup()
    for path in backups:
        taken = backup_time(path)
        when_text = taken.astimezone().strftime("%Y-%m-%d %H:%M") if taken else "?"
        try:
            size = _size(path.stat().st_size)
        except OSError:
            size = "?"
        mark = "  (drill restore takes this one)" if path == default else ""
        typer.echo(f"{when_text}  {backup_kind(path):<10} {size:>9}  {printable(path)}{mark}")
    typer.echo("`drill restore BACKUP` restores one of them; the current file is kept beside it.")


# ---------------------------------------------------------------- settings


SETTING_HELP = {
    "retention": "the recall probability reviews aim for (0.7 to 0.97)",
    "daily_new_limit": "new drills introduced per day (0 to 32)",
    "vi_mode": "vi key bindings in the editor (true or false)",
    "plan": "the study plan that orders new drills",
}


def _unknown_setting(key: str) -> str:
    known = list(SETTING_DEFAULTS)
    close = difflib.get_close_matches(key.replace("-", "_").lower(), known, n=1, cutoff=0.5)
    hint = f"did you mean {close[0]}? " if close else ""
    return f"unknown setting {key!r}; {hint}settings: {', '.join(known)}"


@app.command("settings")
def settings_command(
    key: Optional[str] = typer.Argument(None, metavar="[KEY]",
                                        help="retention, daily_new_limit, vi_mode or plan"),
    value: Optional[str] = typer.Argument(None, metavar="[VALUE]", help="the new value (JSON or text)"),
    unset: Optional[str] = typer.Option(None, "--unset", metavar="KEY",
                                        help="remove a stored setting (a known one goes back to its default)"),
) -> None:
    """Show the settings, set one (`drill settings retention 0.85`) or unset one."""
    if unset is not None:
        if key is not None:
            usage_error("give either --unset KEY or KEY [VALUE], not both")
        _unset_setting(unset)
        return
    if key is not None and key not in SETTING_DEFAULTS:
        stored_extra = False
        if value is None and database_exists():
            with open_store() as store:
                stored_extra = key in store.settings().extra
        if not stored_extra:
            usage_error(_unknown_setting(key))
    if value is None:
        _show_settings(key)
        return
    try:
        parsed: Any = json.loads(value)
    except json.JSONDecodeError:
        parsed = value
    if key == "plan":
        try:
            load_plan(str(parsed))
        except PlanError as exc:  # a bad value, as for every other setting: a usage problem, exit 2
            usage_error(str(exc))
    assert key is not None  # a VALUE always comes after a KEY
    with open_store() as store:
        try:
            store.set_setting(key, parsed)
        except ValueError as exc:
            usage_error(str(exc))
    typer.echo(f"{printable(key)} = {json.dumps(parsed)}")


def _unset_setting(unset: str) -> None:
    removed = False
    if database_exists():
        with open_store() as store:
            removed = store.unset_setting(unset)
    if unset in SETTING_DEFAULTS:
        typer.echo(f"{unset} = {json.dumps(SETTING_DEFAULTS[unset])} (the default)")
    elif removed:
        typer.echo(f"removed {printable(unset)}")
    else:
        usage_error(_unknown_setting(unset))


def _show_settings(key: str | None) -> None:
    """Every setting (and any stored value drill does not read), or the one named."""
    current: dict[str, Any] = dict(SETTING_DEFAULTS)
    extra: dict[str, Any] = {}
    if database_exists():
        with open_store() as store:
            s = store.settings()
        current = {"retention": s.retention, "daily_new_limit": s.daily_new_limit,
                   "vi_mode": s.vi_mode, "plan": s.plan}
        extra = dict(s.extra)
    if key is not None:
        shown = {key: current[key]} if key in current else {key: extra[key]}
    else:
        shown = current
    for k, v in shown.items():
        typer.echo(f"{printable(k)} = {json.dumps(v)}" + (f"    # {SETTING_HELP[k]}" if k in SETTING_HELP and key is None
                                                else ""))
    for k, v in (extra.items() if key is None else ()):
        typer.echo(f"{printable(k)} = {printable(json.dumps(v))}    # not a setting drill reads; "
                   f"`drill settings --unset {printable(k)}` removes it")
