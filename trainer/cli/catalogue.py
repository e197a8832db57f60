"""`drill list` and `drill show`: the catalogue, torch-free and fast."""
from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, List, Optional, Sequence

import typer

from grader.errors import UsageError
from grader.spec import TOPICS
from trainer.catalogue_cache import load_catalogue
from trainer.clock import mmss as _mmss
from trainer.cli.app import app
from trainer.text.fold import fold, fold_line, terminal_width
from trainer.text.ledger import ledger_lines
from trainer.text.markup import printable
from trainer.clock import utc_now

if TYPE_CHECKING:
    from grader.catalogue import Catalogue
    from grader.spec import DimRule
    from trainer.schedule.due import Agenda
    from trainer.store import DrillSummary


def load_catalogue_or_exit():
    cat = load_catalogue()
    for warning in cat.warnings():
        typer.echo(f"drill: {printable(warning)}", err=True)
    return cat


def complete_drill_id(incomplete: str) -> list[str]:
    """Shell completion of a drill id (typer's --install-completion)."""
    try:
        return [d for d in load_catalogue().specs if d.startswith(incomplete)]
    except Exception:  # noqa: BLE001 - completion must never print a traceback
        return []


def get_spec_or_exit(drill_id: str):
    """The drill's spec; an unknown id raises UnknownDrill, which the CLI's error edge
    (trainer.cli.errors) turns into a usage error (exit 2)."""
    return load_catalogue_or_exit().get(drill_id)


def _dim_rule_text(rule: DimRule) -> str:
    if rule.expr:
        return f"= {rule.expr}"
    if rule.low == rule.high:
        return f"= {rule.low}"
    return f"in [{rule.low}, {rule.high}]"


@app.command("show")
def show(drill_id: str = typer.Argument(..., metavar="ID", help="the drill id, e.g. mha-padding",
                                        autocompletion=complete_drill_id),
         variant: List[str] = typer.Option([], "--variant", metavar="AXIS=VALUE",
                                           help="show it under a variant (repeatable; `random` draws one)")) -> None:
    """Prompt, shape ledger, signature(s) to write, target time, and the variants."""
    # a DRILL_PATH pack's text is the author's: its format characters (U+200B, U+2028, U+FEFF...)
    # are shown as escapes (trainer.text.markup.printable), never printed raw
    from grader.spec.variants import describe, labels, parse_variant_args

    spec = get_spec_or_exit(drill_id)
    spec = spec.under(parse_variant_args(spec, variant))
    width = terminal_width()
    variant_note = f"  [variant: {describe(spec.variant)}]" if spec.variant else ""
    out = fold_line(f"{spec.id}: {printable(spec.title)}{variant_note}", width)
    out += fold_line(f"topic: {spec.topic}    target: {_mmss(spec.target_seconds)}", width) + [""]
    out += fold(printable(spec.prompt.rstrip(), keep="\n"), width) + [""]
    if spec.dims:
        out.append("dimensions:")
        for rule in spec.dims.values():
            out += fold_line(f"{rule.name:<6} {_dim_rule_text(rule)}", width, "  ")
        out.append("")
    out.append("write:")
    for line in ledger_lines(spec, signatures=True, indent="  "):
        out += fold_line(printable(line), width)
    if spec.banned:
        out += [""] + fold_line("banned: " + ", ".join(spec.banned), width)
    if spec.variants:
        out += ["", "variants (* = shown here; reviews vary them):"]
        for _axis, lines in labels(spec):
            for line in lines:
                out += fold_line(printable(line), width, "  ")
    flag = "".join(f" --variant {a}={v}" for a, v in spec.variant.items())
    out += [""] + fold_line(f"practise it: drill solve {spec.id}{flag}", width) \
        + fold_line(f"grade a file: drill check {spec.id} FILE{flag}", width)
    typer.echo("\n".join(out))


def check_topic(topic: str | None, cat: Catalogue) -> None:
    """Exit with a usage error naming the topics when no drill has topic ``topic``."""
    if topic is not None and not any(s.topic == topic for s in cat.specs.values()):
        close = difflib.get_close_matches(topic, list(TOPICS), n=1)
        hint = f"did you mean {close[0]}? " if close else ""
        raise UsageError(f"no drills in topic {topic!r}; {hint}topics: {', '.join(TOPICS)}")


_HEADER = ("#", "id", "topic", "state", "due", "best", "target", "variants", "title")
_MIN_TITLE = 16


@app.command("list")
def list_drills(
    topic: Optional[str] = typer.Option(None, "--topic", help="only this topic"),
    due: bool = typer.Option(False, "--due", help="only drills due now"),
) -> None:
    """The catalogue with each drill's state, due date and best time."""
    cat = load_catalogue_or_exit()
    check_topic(topic, cat)
    specs = [s for s in cat.specs.values() if topic is None or s.topic == topic]
    summaries, agenda, passed = _progress(list(cat.specs))
    due_now = set(agenda.due)
    rows = []
    for s in specs:
        if due and s.id not in due_now:
            continue
        info = summaries.get(s.id)
        state = info.state if info else "new"
        best = info.best_seconds if info else None
        rows.append((f"{s.number:>2}" if s.number else "  ", s.id, s.topic, state,
                     _due_text(s.id, info, agenda), _mmss(int(round(best))) if best is not None else "-",
                     _mmss(s.target_seconds), _variants_text(s, passed.get(s.id, [])), printable(s.title)))
    lines = table_lines(rows, terminal_width())
    if due and not rows:
        lines = fold_line(_nothing_due(agenda), terminal_width(), more="")
    typer.echo("\n".join(lines))


def table_lines(rows: Sequence[tuple[str, ...]], width: int) -> list[str]:
    """The table folded to `width`: the title wraps in its column; when even that does not
    fit, each drill takes two lines, the title (and topic) on the second."""
    cols = [max(len(str(r[i])) for r in [*rows, _HEADER]) for i in range(len(_HEADER) - 1)]
    fixed = sum(cols) + 2 * len(cols)
    longest = max((len(w) for r in rows for w in str(r[-1]).split()), default=0)  # a word is never broken
    if width - fixed >= max(_MIN_TITLE, longest):
        pad = " " * fixed
        out = [_row(_HEADER, cols + [0])]
        for r in rows:
            folded = fold_line(r[-1], width - fixed, more="")
            out.append(_row((*r[:-1], folded[0]), cols + [0]))
            out += [pad + more for more in folded[1:]]
        return out
    keep = [0, 1, 3, 4, 5, 6, 7]  # without topic and title: those go on a line of their own
    narrow = [cols[i] for i in keep]
    out = [_row([_HEADER[i] for i in keep], narrow)]
    for r in rows:
        out.append(_row([r[i] for i in keep], narrow))
        out += fold_line(f"{r[-1]} ({r[2]})", width, "     ", more="")
    return out


def _row(cells: Sequence[object], widths: Sequence[int]) -> str:
    return "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()


def _due_text(drill: str, info: DrillSummary | None, agenda: Agenda) -> str:
    if drill in agenda.due:
        return "now"
    if drill in agenda.suspended:
        return "suspended"
    if drill in dict(agenda.buried):
        return "buried"
    at = getattr(info, "due", None) if info else None
    if at is None:
        return "-"
    local = at.astimezone(agenda.now.tzinfo)
    if local.date() == agenda.now.date():
        return f"today {local:%H:%M}"
    return f"{local:%Y-%m-%d}"


def _nothing_due(agenda: Agenda) -> str:
    text = "Nothing is due now."
    if agenda.later_today:
        from trainer.schedule.due import when

        drill, at = agenda.later_today[0]
        text += f" {drill} is back {when(at, agenda.now)}."
    if agenda.new:
        return text + f" {len(agenda.new)} new drill(s) left today: `drill warmup` introduces them."
    return text + " Today's new drills are used up; `drill warmup --more` studies ahead."


def _variants_text(spec: object, passed: list[dict[str, str]]) -> str:
    """'2/5*': the drill's variant values passed of all (trainer.practice.variants.values_passed),
    starred while some are not passed yet; '-' for a drill without variants."""
    axes = getattr(spec, "variants", ())
    if not axes:
        return "-"
    from trainer.practice.variants import values_passed

    done, total = values_passed(axes, passed)
    return f"{done}/{total}" + ("*" if done < total else "")


def _progress(known: list[str]):
    """Per-drill progress, the agenda (trainer.schedule.due) and the variants passed, from the
    store, without creating it."""
    # the store and the scheduler are imported here, not above: `drill check` imports this module for
    # its catalogue helpers, and has no use for them
    from trainer.schedule.due import agenda_now, read_agenda
    from trainer.store import database_exists, open_store

    now = utc_now().astimezone()
    if not database_exists():
        return {}, agenda_now(known, now), {}
    with open_store(create=False) as store:
        return store.drill_summaries(), read_agenda(store, known, now), store.passed_variants()
