"""Progress commands: export, import, reset, restore and settings (the no-argument
status is trainer.cli.status).

Everything here is torch-free and fast. Store problems (damaged file, newer
schema, read-only home, full disk) arrive as ``StoreError`` and leave as one
line on stderr and a non-zero exit status at the CLI's one error edge
(trainer.cli.errors).
"""
from __future__ import annotations

import difflib
import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any, Optional

import typer

from grader.errors import DrillError, UnknownDrill, UsageError, unknown_drill_message
from grader.spec.userfile import IMPORT_LIMIT, UnreadableFile, decode_text, read_bytes, read_stream
from trainer.cli.app import app
from trainer.cli.catalogue import complete_drill_id
from trainer.cli.status import catalogue_ids, local_now
from trainer.schedule.due import when
from trainer.files import write_atomically
from trainer.text.markup import printable
from trainer.schedule.plans import PlanError, StudyPlan, load_plan
from trainer.reports import plural
from trainer.clock import utc_now
from trainer.store import (
    EXPORT_FORMAT,
    SETTING_DEFAULTS,
    NothingRestored,
    database_exists,
    latest_backup,
    list_backups,
    open_store,
    restore_backup,
)


def known_drill_ids(plan: StudyPlan | None = None) -> set[str]:
    """The plan's drill ids, plus the catalogue's."""
    ids = set((plan or load_plan()).order)
    return ids | set(catalogue_ids())


# ---------------------------------------------------------------- export / import


def _empty_export() -> dict[str, Any]:
    return {"format": EXPORT_FORMAT, "exported_at": utc_now().isoformat(),
            "attempts": [], "cards": [], "sessions": [], "settings": {}, "holds": []}


@app.command("export")
def export_command(
    file: str = typer.Argument(..., metavar="FILE", help="Where to write the JSON ('-' for stdout)."),
    force: bool = typer.Option(False, "--force", help="Replace FILE when it exists."),
) -> None:
    """Write all progress (attempts, cards, sessions, settings, suspended and buried drills) to FILE as JSON."""
    target = Path(file).expanduser()
    if file != "-" and not force and (target.exists() or target.is_symlink()):
        raise UsageError(f"{printable(target)} exists; nothing was written. Give another FILE, or add --force "
                         f"to replace it.")
    if database_exists():
        with open_store() as store:
            data = store.export()
    else:
        data = _empty_export()
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    if file == "-":
        sys.stdout.write(text)
        return
    try:
        write_atomically(target, text)
    except OSError as exc:
        raise DrillError(f"cannot write {printable(target)}: {exc.strerror or exc}") from None
    typer.echo(f"Exported {plural(len(data['attempts']), 'attempt')}, {plural(len(data['cards']), 'card')}, "
               f"{plural(len(data['sessions']), 'session')}, {plural(len(data['settings']), 'setting')} and "
               f"{plural(len(data['holds']), 'suspended or buried drill')} to {printable(target)}.")


@app.command("import")
def import_command(
    file: str = typer.Argument(..., metavar="FILE", help="A file written by `drill export` ('-' for stdin)."),
) -> None:
    """Merge progress from FILE (written by `drill export`); attempts already present are skipped."""
    source = "stdin" if file == "-" else printable(file)
    try:
        if file == "-":
            if sys.stdin is None:
                raise UsageError("cannot read stdin: it is closed")
            raw = read_stream(sys.stdin.buffer, IMPORT_LIMIT)
        else:
            raw = read_bytes(Path(file).expanduser(), IMPORT_LIMIT)
        text = decode_text(raw, source)
    except UnreadableFile as exc:
        raise UsageError(f"{printable(exc)}. Nothing was imported.")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"refusing to import {source}: not JSON ({exc.msg} at line {exc.lineno}). "
                         f"Nothing was imported.")
    except RecursionError:
        raise UsageError(f"refusing to import {source}: the JSON is nested too deeply. Nothing was imported.")
    except (ValueError, MemoryError) as exc:
        raise UsageError(f"refusing to import {source}: {str(exc).split(':')[0][:80]}. Nothing was imported.")
    with open_store() as store:
        result = store.import_(data, source=source)
    typer.echo(f"Imported {result.attempts_added} attempts ({result.attempts_skipped} already present, "
               f"skipped), {result.sessions_added} sessions, {result.cards_updated} cards updated, "
               f"{plural(result.settings_taken, 'setting')} taken (a setting already set here is kept), "
               f"{plural(result.holds_changed, 'hold')} merged.")
    if result.backup is not None:
        typer.echo(f"A backup was saved first: {printable(result.backup)} "
                   f"(undo with `drill restore {printable(result.backup)}`).")


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
            raise UnknownDrill(unknown_drill_message(drill_id, known_drill_ids()))
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
                    raise UnknownDrill(unknown_drill_message(drill_id, known_drill_ids()))
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
    chosen = backup or latest_backup()
    if chosen is None:
        raise DrillError("no backups yet; nothing to restore.")
    if not chosen.is_file():
        raise UsageError(f"no backup file {chosen}")

    def confirm(path: Path) -> bool:  # asked once the backup has been checked
        return yes or _confirm(f"Replace the progress database with {printable(path)}?")

    try:
        restored, kept = restore_backup(backup=chosen, confirm=confirm)
    except NothingRestored:
        typer.echo("Nothing was changed.")
        raise typer.Exit(1)
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


def _local_time(taken: datetime | None) -> str:
    """A backup's time in local time; in UTC where local time cannot hold it (year 9999 east of
    Greenwich), '?' without one."""
    if taken is None:
        return "?"
    try:
        return taken.astimezone().strftime("%Y-%m-%d %H:%M")
    except (OverflowError, ValueError, OSError):
        return taken.strftime("%Y-%m-%d %H:%M") + " UTC"


def _list_backups(backups: list[Path]) -> None:
    """`restore --list`: newest first, each with its date (local time), kind and size, and which
    one a bare `drill restore` takes; a file drill did not write says why (files.not_drills)."""
    from trainer.store.files import backup_kind, backup_time, not_drills

    if not backups:
        typer.echo("No backups yet.")
        return
    now = utc_now()
    default = latest_backup(now=now)
    for path in backups:
        try:
            size = _size(path.lstat().st_size)
        except OSError:
            size = "?"
        foreign = not_drills(path, now)
        mark = ("  (drill restore takes this one)" if path == default else
                f"  (not a backup drill wrote: {foreign})" if foreign else "")
        typer.echo(f"{_local_time(backup_time(path))}  {printable(backup_kind(path)):<10} {size:>9}  "
                   f"{printable(path)}{mark}")
    typer.echo("`drill restore BACKUP` restores one of them; the current file is kept beside it.")


# ---------------------------------------------------------------- settings


SETTING_HELP = {
    "retention": "the recall probability reviews aim for (0.7 to 0.97)",
    "daily_new_limit": "new drills introduced per day (0 to 32)",
    "vi_mode": "vi key bindings in the editor (true or false; yes/no and on/off too)",
    "plan": "the study plan that orders new drills",
    "debug_share": "of a warm-up's reviews of passed drills, the share that come as debug rounds (0 to 1)",
}


def _unknown_setting(key: str) -> str:
    known = list(SETTING_DEFAULTS)
    close = difflib.get_close_matches(key[:64].replace("-", "_").lower(), known, n=1, cutoff=0.5)
    hint = f"did you mean {close[0]}? " if close else ""
    return f"unknown setting {key!r:.60}; {hint}settings: {', '.join(known)}"


@app.command("settings")
def settings_command(
    key: Optional[str] = typer.Argument(None, metavar="[KEY]",
                                        help="retention, daily_new_limit, vi_mode, plan or debug_share"),
    value: Optional[str] = typer.Argument(None, metavar="[VALUE]", help="the new value (JSON or text)"),
    unset: Optional[str] = typer.Option(None, "--unset", metavar="KEY",
                                        help="remove a stored setting (a known one goes back to its default)"),
) -> None:
    """Show the settings, set one (`drill settings retention 0.85`) or unset one."""
    if unset is not None:
        if key is not None:
            raise UsageError("give either --unset KEY or KEY [VALUE], not both")
        _unset_setting(unset)
        return
    if key is not None and key not in SETTING_DEFAULTS:
        stored_extra = False
        if value is None and database_exists():
            with open_store() as store:
                stored_extra = key in store.settings().extra
        if not stored_extra:
            raise UsageError(_unknown_setting(key))
    if value is None:
        _show_settings(key)
        return
    try:
        parsed: Any = json.loads(value)
    except json.JSONDecodeError:
        parsed = value
    parsed = _switch_word(key, parsed)
    if key == "plan":
        try:
            load_plan(str(parsed))
        except PlanError as exc:  # a bad value, as for every other setting: a usage problem, exit 2
            raise UsageError(str(exc)) from None
    assert key is not None  # a VALUE always comes after a KEY
    with open_store() as store:
        try:
            store.set_setting(key, parsed)
        except ValueError as exc:
            raise UsageError(str(exc))
    typer.echo(f"{printable(key)} = {json.dumps(parsed)}")


_SWITCH_WORDS = {"yes": True, "on": True, "1": True, "no": False, "off": False, "0": False}


def _switch_word(key: str | None, value: Any) -> Any:
    """A true/false setting also takes yes/no, on/off and 1/0, as git's do."""
    if key in SETTING_DEFAULTS and isinstance(SETTING_DEFAULTS[key], bool):
        word = str(value).strip().lower() if isinstance(value, (str, int)) and not isinstance(value, bool) else None
        if word in _SWITCH_WORDS:
            return _SWITCH_WORDS[word]
    return value


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
        raise UsageError(_unknown_setting(unset))


def _show_settings(key: str | None) -> None:
    """Every setting (and any stored value drill does not read), or the one named."""
    current: dict[str, Any] = dict(SETTING_DEFAULTS)
    extra: dict[str, Any] = {}
    if database_exists():
        with open_store() as store:
            s = store.settings()
        current = {"retention": s.retention, "daily_new_limit": s.daily_new_limit,
                   "vi_mode": s.vi_mode, "plan": s.plan, "debug_share": s.debug_share}
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


# ---------------------------------------------------------------- card control


RATINGS = {"again": 1, "hard": 2, "good": 3, "easy": 4}


def _say(text: str) -> None:
    """A message folded at spaces to the terminal's width (a path or command stays whole)."""
    from trainer.text.fold import fold_line, terminal_width

    typer.echo("\n".join(fold_line(text, terminal_width(), more="")))


def _known_or_exit(drill_id: str) -> None:
    if drill_id not in known_drill_ids():
        raise UsageError(unknown_drill_message(drill_id, known_drill_ids()))


def _moment(at: datetime, now: datetime) -> str:
    local = at.astimezone(now.tzinfo)
    days = (now.date() - local.date()).days
    day = "today" if days == 0 else "yesterday" if days == 1 else f"{local:%a %d %b}"
    return f"{day} at {local:%H:%M}"


def _next_due_line(drill: str, due: datetime | None, now: datetime) -> str:
    if due is None:
        return f"{drill} is new again: the plan offers it as a new drill."
    return f"Next review of {drill}: {when(due, now)}."


@app.command("suspend")
def suspend_command(
    drill_id: str = typer.Argument(..., metavar="ID", help="the drill to keep out of reviews",
                                   autocompletion=complete_drill_id),
    off: bool = typer.Option(False, "--off", help="take the suspension off (as `drill unsuspend ID`)"),
) -> None:
    """Keep a drill out of reviews, new drills, warm-ups and mocks until `drill unsuspend ID`."""
    _set_suspended(drill_id, not off)


@app.command("unsuspend")
def unsuspend_command(
    drill_id: str = typer.Argument(..., metavar="ID", help="the suspended drill",
                                   autocompletion=complete_drill_id),
) -> None:
    """Bring a suspended drill back: due when its schedule says, or new."""
    _set_suspended(drill_id, False)


def _set_suspended(drill_id: str, suspended: bool) -> None:
    _known_or_exit(drill_id)
    if not suspended and not database_exists():
        _say(f"{drill_id} is not suspended; nothing changed.")
        return
    now = local_now()
    with open_store() as store:
        changed = store.suspend(drill_id, suspended)
        card = store.card(drill_id)
    if suspended:
        _say(f"Suspended {drill_id}: it stays out of `drill`, `drill list --due`, warm-ups and mocks "
                   f"until `drill unsuspend {drill_id}`." if changed else
                   f"{drill_id} was already suspended; nothing changed.")
        return
    if not changed:
        _say(f"{drill_id} is not suspended; nothing changed.")
        return
    due = card.due if card else None
    _say(f"Unsuspended {drill_id}. " + (f"It is due {when(due, now)}." if due is not None
                                               else "It is a new drill again in the plan."))


@app.command("bury")
def bury_command(
    drill_id: str = typer.Argument(..., metavar="ID", help="the drill to push to tomorrow",
                                   autocompletion=complete_drill_id),
    off: bool = typer.Option(False, "--off", help="dig it up again today"),
) -> None:
    """Push a drill to tomorrow: out of today's reviews, new drills, warm-ups and mocks."""
    from trainer.schedule.due import end_of_day

    _known_or_exit(drill_id)
    now = local_now()
    if off and not database_exists():
        _say(f"{drill_id} is not buried; nothing changed.")
        return
    with open_store() as store:
        hold = store.holds().get(drill_id)
        if off:
            store.bury(drill_id, None)
            active = hold is not None and hold.buried_until is not None and hold.buried_until > now
            _say(f"Dug up {drill_id}: it is back in today's work." if active
                       else f"{drill_id} is not buried; nothing changed.")
            return
        until = end_of_day(now)
        store.bury(drill_id, until)
        card = store.card(drill_id)
    suspended = " (it is also suspended: `drill unsuspend` it too)" if hold is not None and hold.suspended else ""
    due = f" Its review was due {when(card.due, now)}." if card is not None and card.due <= now else ""
    _say(f"Buried {drill_id} until tomorrow ({until:%a %d %b} 00:00).{due}{suspended}")


@app.command("undo")
def undo_command(
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask (for scripts)."),
) -> None:
    """Take back the last review: the card as it was before, the review and its attempts removed
    (a backup is taken first)."""
    from trainer.store.control import RATING_NAMES, CannotChange

    if not database_exists():
        _say("No reviews recorded yet; nothing to undo.")
        return
    now = local_now()
    with open_store() as store:
        last = store.last_review()
        if last is None:
            _say("No reviews recorded yet; nothing to undo.")
            return
        drill, at, rating = last
        question = f"Undo the review of {drill} ({RATING_NAMES[rating]}, {_moment(at, now)}) and remove its attempts?"
        if not yes and not _confirm(question):
            _say("Nothing was changed.")
            raise typer.Exit(1)
        try:
            change = store.undo_last_review()
        except CannotChange as exc:
            typer.echo(f"drill: cannot undo: {exc}", err=True)
            raise typer.Exit(1) from None
    assert change is not None
    _say(f"Undid the review of {change.drill} ({RATING_NAMES[change.rating]}, {_moment(change.reviewed_at, now)}): "
               f"its card is back as it was before, and the sitting's {plural(change.attempts_removed, 'attempt')} "
               f"{'was' if change.attempts_removed == 1 else 'were'} removed.")
    _say(_next_due_line(change.drill, change.card.due if change.card else None, now))
    _say(f"A backup was saved first: {printable(change.backup)}")
    _say("`drill restore` with that file brings the removed attempts back.")


@app.command("rate")
def rate_command(
    drill_id: str = typer.Argument(..., metavar="ID", help="the drill whose last review to re-rate",
                                   autocompletion=complete_drill_id),
    rating: str = typer.Argument(..., metavar="RATING", help="again, hard, good or easy"),
) -> None:
    """Override the rating of a drill's last review once ("that pass was a guess": `drill rate ID again`)."""
    from trainer.store.control import RATING_NAMES, CannotChange

    _known_or_exit(drill_id)
    value = RATINGS.get(rating.strip().lower())
    if value is None:
        raise UsageError(f"unknown rating {printable(rating)!r}; give one of again, hard, good, easy")
    if not database_exists():
        _say(f"{drill_id} has no review yet; nothing to re-rate.")
        raise typer.Exit(1)
    now = local_now()
    with open_store() as store:
        try:
            change = store.rerate_last_review(drill_id, value)
        except CannotChange as exc:
            typer.echo(f"drill: cannot re-rate: {exc}", err=True)
            raise typer.Exit(1) from None
    if change is None:
        _say(f"{drill_id} has no review yet; nothing to re-rate.")
        raise typer.Exit(1)
    was = RATING_NAMES[change.rating]
    same = " (it already was)" if change.rating == value else f" (was {was})"
    _say(f"The review of {drill_id} {_moment(change.reviewed_at, now)} is now {RATING_NAMES[value]}{same}.")
    _say(_next_due_line(drill_id, change.card.due if change.card else None, now))
