"""The small phrases every report renderer shares: times, counts, rates.

Written once so that the terminal, Markdown, HTML and the team board say the
same thing the same way. ``mmss`` is trainer.clock's, the one `mm:ss`.
"""
from __future__ import annotations

from trainer.clock import mmss
from trainer.reports.model import Mistake, VariantResult, WeakDrill

__all__ = ["best_text", "duration", "first_try_text", "mmss", "percent", "plural", "untimed_note",
           "values_text", "variant_command", "variant_tally", "VARIANTS_NOTE"]

VARIANTS_NOTE = ("a value counts as passed once any attempt under it passed; failed, while its last "
                 "result is a fail; a fail counts against the non-default values of the variant failed")


def values_text(values: tuple[VariantResult, ...]) -> str:
    """'mask=pad, layout=bhtd', or a dash for none."""
    return ", ".join(v.label for v in values) or "—"


def variant_tally(v: VariantResult) -> str:
    """'failed 2, passed 1 (last: fail)'."""
    last = {"fail": "failed", "pass": "passed"}.get(v.last or "", "never graded")
    return f"failed {v.fails}, passed {v.passes} (last {last})"


def variant_command(v: VariantResult) -> str:
    """The command that practises one variant value."""
    return f"drill solve {v.drill} --variant {v.label}"


def practise_commands(m: Mistake) -> tuple[str, ...]:
    """The commands that meet a mistake's trap (with `--variant` where only a variant has it)."""
    return m.commands or tuple(f"drill solve {d}" for d in m.practise)


def untimed_note(n: int) -> str:
    """The sentence saying why some passes are not in the trend ('' when none)."""
    if not n:
        return ""
    return (f"{plural(n, 'pass')} from graded files (drill check --record, team run --file) "
            f"{'is' if n == 1 else 'are'} left out: {'it times' if n == 1 else 'they time'} the grader, not you.")


def duration(seconds: float) -> str:
    """Time spent, for people: 45 s, 12 min, 3h 05m."""
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min"
    return f"{s // 3600}h {s % 3600 // 60:02d}m"


def plural(n: int, word: str) -> str:
    """'1 day', '3 days'."""
    return f"{n} {word}{'' if n == 1 else ('es' if word.endswith('s') else 's')}"


def first_try_text(w: WeakDrill) -> str:
    """'1/3' first submits passed, or a dash when no attempt was a first submit."""
    return f"{w.first_passes}/{w.first_tries}" if w.first_tries else "—"


def best_text(w: WeakDrill) -> str:
    """'1:05 / 3:00' (best timed pass against the target), or 'not yet passed'."""
    if not w.passed:
        return "not yet passed"
    return f"{mmss(w.best)} / {mmss(w.target)}"


def percent(value: float | None) -> str:
    return "—" if value is None else f"{round(100 * value)}%"
