"""`drill list` and `drill show`: the catalogue, torch-free and fast."""
from __future__ import annotations

from typing import Optional

import typer

from trainer.cli.app import app, usage_error
from trainer.ledger import ledger_lines


def load_catalogue_or_exit():
    from grader.spec import load_catalogue

    from trainer.markup import printable

    cat = load_catalogue()
    for warning in cat.warnings():
        typer.echo(f"drill: {printable(warning)}", err=True)
    return cat


def get_spec_or_exit(drill_id: str):
    from grader.spec import UnknownDrill

    cat = load_catalogue_or_exit()
    try:
        return cat.get(drill_id)
    except UnknownDrill as exc:
        usage_error(str(exc))


def _dim_rule_text(rule) -> str:
    if rule.expr:
        return f"= {rule.expr}"
    if rule.low == rule.high:
        return f"= {rule.low}"
    return f"in [{rule.low}, {rule.high}]"


@app.command("show")
def show(drill_id: str = typer.Argument(..., metavar="ID", help="the drill id, e.g. mha-padding")) -> None:
    """Prompt, shape ledger, signature(s) to write, target time."""
    spec = get_spec_or_exit(drill_id)
    out = [f"{spec.id}: {spec.title}", f"topic: {spec.topic}    target: {_mmss(spec.target_seconds)}", ""]
    out += [spec.prompt.rstrip(), ""]
    if spec.dims:
        out.append("dimensions:")
        for rule in spec.dims.values():
            out.append(f"  {rule.name:<6} {_dim_rule_text(rule)}")
        out.append("")
    out.append("write:")
    out += ledger_lines(spec, signatures=True, indent="  ")
    if spec.banned:
        out += ["", "banned: " + ", ".join(spec.banned)]
    out += ["", f"practise it: drill solve {spec.id}    grade a file: drill check {spec.id} FILE"]
    typer.echo("\n".join(out))


def _mmss(seconds: int) -> str:
    return f"{seconds // 60}:{seconds % 60:02d}"


@app.command("list")
def list_drills(
    topic: Optional[str] = typer.Option(None, "--topic", help="only this topic"),
    due: bool = typer.Option(False, "--due", help="only drills due now"),
) -> None:
    """The catalogue with each drill's state, due date and best time."""
    cat = load_catalogue_or_exit()
    specs = [s for s in cat.specs.values() if topic is None or s.topic == topic]
    if topic is not None and not specs:
        from grader.spec import TOPICS

        usage_error(f"no drills in topic {topic!r}; topics: {', '.join(TOPICS)}")
    summaries = _summaries()
    rows = []
    now_iso = _now_iso()
    for s in specs:
        info = summaries.get(s.id)
        state = getattr(info, "state", "new") if info else "new"
        due_at = getattr(info, "due", None) if info else None
        due_text = due_at.astimezone().strftime("%Y-%m-%d") if due_at else "-"
        if due and (due_at is None or due_at.isoformat() > now_iso):
            continue
        best = getattr(info, "best_seconds", None) if info else None
        best_text = _mmss(int(round(best))) if best is not None else "-"
        rows.append((f"{s.number:>2}" if s.number else "  ", s.id, s.topic, state, due_text, best_text, _mmss(s.target_seconds), s.title))
    header = ("#", "id", "topic", "state", "due", "best", "target", "title")
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(header, widths)).rstrip()]
    for r in rows:
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())
    if due and not rows:
        lines.append("nothing is due now; `drill warmup` introduces new drills")
    typer.echo("\n".join(lines))


def _now_iso() -> str:
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).isoformat()


def _summaries() -> dict:
    """Per-drill progress from the store, or nothing when there is no database yet."""
    try:
        from trainer.store import database_exists, open_store
    except ImportError:
        return {}
    if not database_exists():
        return {}
    from trainer.cli.progress import store_errors

    with store_errors():
        with open_store(create=False) as store:
            return store.drill_summaries()
