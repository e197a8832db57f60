"""The one renderer of a grading Report, for every screen (`--json` aside).

`render(report, ...)` gives prompt_toolkit-style fragments, `(style class,
text)`, in two densities:

- full: the headline (the spec's cases passed, the same count on every verdict
  of a drill; the device and scale checks apart, "not checked" with the reason
  when they could not run), the case that decided the verdict (its dimension sizes,
  its message, its inputs when they are not tensors), the trap with its why
  wrapped to the width, the other failing cases by name (each once), and
  what the solution printed. `drill check`, the REPL's output pane and
  `team run`'s REPL show this.
- compact: the headline, that case on one line, and the trap's id. `drill
  watch`, warm-up and mock summaries and `team run --file` show this.

The REPL prints fragments through prompt_toolkit; the plain CLI turns them
into ANSI text with `ansi()` (plain when NO_COLOR is set or output is not a
terminal). Everything that comes from outside (messages, names, what a
solution printed or raised) passes through `printable`, so an escape
sequence is shown, never acted on.
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from grader.report import CaseKind, CaseResult, Report, Smallest, Verdict
from trainer.clock import mmss  # the one mm:ss; toolbar and header import it from here
from trainer.text.markup import printable, printable_lines

if TYPE_CHECKING:  # prompt_toolkit's own type for styled text: (style, text) pairs
    from prompt_toolkit.formatted_text import StyleAndTextTuples as Fragments
else:  # at run time a plain list: `drill check` and the worker render without loading prompt_toolkit (0.15 s)
    Fragments = list
Density = Literal["full", "compact"]

_ALSO_SHOWN = 4  # other failing cases named before "and N more"
_PRINTED_LINES = 3


@dataclass(frozen=True)
class PassInfo:
    """What only the REPL knows after a pass."""

    elapsed: float
    target: float
    due: datetime | None = None
    now: datetime | None = None
    reference: str = ""
    seed_trap: str = ""
    grading: float = 0.0  # seconds the grader worked, left out of `elapsed` (trainer.clock.PersonClock)
    reference_title: str = "Reference solution"  # or the variant sample's ("A solution under layout=tbd")


def render(report: Report, density: Density = "full", *, width: int = 80, path: str = "",
           info: PassInfo | None = None, verbose: bool = False, footer: str = "", title: bool = True) -> Fragments:
    """The report as fragments; `path` names the file graded, `verbose` lists every case,
    `title=False` leaves the drill id and timing out of the headline (the REPL shows them)."""
    width = max(30, width)
    out: Fragments = _fold_headline(_headline(report, path, density, title), width)
    verdict = Verdict.of(report.verdict)
    if verdict == Verdict.PASS:
        checks = _scale_line(report, width) + (_check_notes(report, width) if density == "full" else [])
        checks += shape_comment_lines(report.shape_comments, width)
        if info is not None:
            out += _pass_lines(info, width, checks)
        else:
            out += [("", "\n")] + checks
        return out
    out.append(("", "\n"))
    if verdict == Verdict.INTERNAL:
        out.append(("class:internal", _wrap(report.message or "the grader failed", width, "  ")))
        out.append(("class:dim", _wrap("This is the grader's fault and does not count against you.", width, "  ")))
        return out
    if report.alone:
        out.append(("class:fail", _wrap(report.message, width, "  ")))
        return out + ([("class:dim", _wrap(footer, width, "  "))] if footer else [])
    shown = report.shown_case
    if report.message and (shown is None or shown.message != report.message):
        out.append(("class:fail", _wrap(report.message, width, "  ")))
    if density == "compact":
        return out + _compact_lines(report, shown, width)
    for case in report.failing if verbose else ([shown] if shown else []):
        out += _case_lines(case, width) + (_smallest_lines(report, width) if case is shown else [])
    if verbose:
        out += [("class:dim", f"  case {printable(c.name)} · {printable(c.function)}() · pass\n")
                for c in report.cases if c.verdict == Verdict.PASS]
    out += _trap_lines(report, width)
    decided = report.deciding
    lessons = [] if verbose else report.lessons
    if not verbose and decided is not None and decided is not shown:
        out += _case_lines(decided, width)  # the case that set the verdict, which the trap does not explain
    for lesson in lessons:  # the device or scale lesson, after the real failure (docs/CLI.md)
        out += _case_lines(lesson, width)
    if not verbose:
        out += _also_failing(report, [shown, decided, *lessons], width)
    out += _printed(report, width)
    out += _check_notes(report, width)
    out += shape_comment_lines(report.shape_comments, width)
    if footer:
        out.append(("class:dim", _wrap(footer, width, "  ")))
    return out


def _trap_lines(report: Report, width: int) -> Fragments:
    """The trap named, its note (what it explains) and why the mistake is one; or, with no trap
    named, the partial match: what it explains, and that something else fails too."""
    if not report.trap:
        return _partial_lines(report, width)
    out: Fragments = [("class:trap", _wrap(f"trap: {report.trap.id} — {report.trap.message}", width, "  ", "    "))]
    if report.trap.note:
        out.append(("class:trap", _wrap(report.trap.note, width, "    ")))
    why = " ".join(report.trap.why.split())
    if why:
        out.append(("class:why", _wrap(why, width, "    ")))
    return out


def _partial_lines(report: Report, width: int, why: bool = True) -> Fragments:
    """'partly: matches no-clip on 8 of 9 failing cases; ...': a trap's mistake that shows on most
    failing cases, said as partial (grader.report.PartialMatch), never as the cause."""
    part = report.partial_trap
    if part is None:
        return []
    out: Fragments = [("class:trap", _wrap(printable(f"partly: {part.note} (not named as the cause: it does not "
                                                     "explain every failure)"), width, "  ", "    "))]
    out.append(("class:trap", _wrap(printable(f"{part.id} — {part.message}"), width, "    ", "      ")))
    text = " ".join(part.why.split())
    if why and text:
        out.append(("class:why", _wrap(printable(text), width, "    ")))
    return out


def shape_comment_lines(checked: list[dict], width: int) -> Fragments:
    """The solution's shape comments (grader.judge.shape_comments): the wrong ones by line, or that
    all were right. A comment never changes the verdict; one that could not be judged is not counted."""
    judged = [c for c in checked if isinstance(c, dict) and c.get("ok") is not None]
    if not judged:
        return []
    wrong = [c for c in judged if c.get("ok") is False]
    if not wrong:
        return [("class:dim", _wrap(f"shape comments: {len(judged)} checked on the example inputs, all right",
                                    width, "  "))]
    out: Fragments = [("class:fail", _wrap(f"shape comments: {len(wrong)} of {len(judged)} wrong on the example "
                                           "inputs (the verdict is the code's)", width, "  "))]
    for c in wrong:
        out.append(("", _wrap(printable(f"line {c.get('line')} says {c.get('says')}; it makes {c.get('makes')}"),
                              width, "    ", "      ")))
    return out


def _compact_lines(report: Report, shown: CaseResult | None, width: int) -> Fragments:
    """A failure in brief: the case shown, and the trap."""
    out: Fragments = []
    if shown is not None:
        dims = dims_text(shown.dims)
        out.append(("", _wrap(f"{shown.name}" + (f" ({dims})" if dims else "") + f": {shown.message}",
                              width, "  ", "    ")))
    if report.trap:
        out.append(("class:trap", _wrap(f"trap: {report.trap.id} — {report.trap.message}", width, "  ", "    ")))
        if report.trap.note:
            out.append(("class:trap", _wrap(report.trap.note, width, "    ")))
    else:
        out += _partial_lines(report, width, why=False)
    return out


def _also_failing(report: Report, told: list[CaseResult | None], width: int) -> Fragments:
    """One line naming the failing cases not `told` in full (a few, then a count)."""
    shown = {(t.name, t.function) for t in told if t is not None}
    shown_names = {name for name, _ in shown}
    rest = []
    for c in report.failing:
        if any(c is t for t in told) or (c.name, c.function) in shown:
            continue  # the case just told (as another entry of the same case) is not "also" failing
        rest.append(f"{c.name} ({c.function}())" if c.name in shown_names and c.function else c.name)
    rest = list(dict.fromkeys(rest))  # each case once
    if not rest:
        return []
    names = ", ".join(printable(n) for n in rest[:_ALSO_SHOWN])
    more = f" and {len(rest) - _ALSO_SHOWN} more" if len(rest) > _ALSO_SHOWN else ""
    return [("class:dim", _wrap(f"also failing: {names}{more}", width, "  ", "    "))]


def _headline(report: Report, path: str, density: Density, title: bool) -> Fragments:
    verdict = Verdict.of(report.verdict)
    out: Fragments = [(style_of(verdict) + " bold", verdict.label)]
    if title:
        out.append(("", f"  {printable(report.drill)}"))
    if path:
        out.append(("", f"  {printable(path)}"))
    cases, checks, unchecked = _counted(report)
    if cases and not report.alone:
        passed = sum(1 for c in cases if c.verdict == Verdict.PASS)
        out.append(("", f"  {passed}/{len(cases)} cases" + (" passed" if verdict != Verdict.PASS else "")))
        for name, state in checks:
            quiet = state.startswith("pass") or state == "not applicable"
            out.append(("class:dim" if quiet else "class:fail", f" · {name}: {state}"))
        for name in unchecked:
            out.append(("class:dim", f" · {name}: not checked"))
    if title:
        out.append(("class:dim", f"  {report.seconds:.2f} s"))
    if report.seed is not None and density == "full" and (title or verdict != Verdict.PASS):
        out.append(("class:dim", f"  seed {report.seed}"))
    return out


def _fold_headline(pieces: Fragments, width: int) -> Fragments:
    """The headline on as few lines of `width` as its pieces fit: each break falls between two pieces (the
    next line indented two spaces, a check's "· gradient: pass" kept whole), never inside a word or a path;
    a piece wider than a line (a long path) has a line of its own."""
    out: Fragments = []
    used = 0
    for piece in pieces:  # (style, text): the headline's pieces carry no mouse handler
        style, text = piece[0], piece[1]
        if out and used + len(text) > width:
            text = text.lstrip(" ")
            out.append(("", "\n  "))
            used = 2
        out.append((style, text))
        used += len(text)
    return out


# the checks beside the spec's cases (grader/fake/scale.py, grader/judge/gradient.py)
_CHECKS = (CaseKind.DEVICE, CaseKind.SCALE, CaseKind.GRADIENT)
_UNCHECKED = ("device case: not checked", "scale: not checked", "device case not checked",
              "device and scale checks not finished", "no device/scale check", "gradient case: not checked")


def _counted(report: Report) -> tuple[list[CaseResult], list[tuple[str, str]], list[str]]:
    """The spec's cases (the same number on every verdict of a drill), each fake-tensor
    check that ran with its worst verdict, and the checks that could not run (a note says why).
    Run-level entries (CaseKind.RUN) are told by the message, not counted as cases."""
    cases = [c for c in report.cases if c.kind == CaseKind.CASE]
    checks = []
    for kind in _CHECKS:
        ran = [c for c in report.cases if c.kind == kind]
        if ran:
            checks.append((str(kind), str(min((Verdict.of(c.verdict) for c in ran), key=lambda v: v.severity))))
    ran_names = {name for name, _ in checks}
    named = {n.get("check") for n in report.not_checked}
    # a check that ran for one function and could not run for another is not "pass" without a word:
    # the headline says the part it could not check, as the notes below it do
    checks = [(name, f"{state}, part not checked" if name in named else state) for name, state in checks]
    unchecked = [str(c) for c in _CHECKS if str(c) not in ran_names and str(c) in named]
    if not named and "device" not in ran_names and _unchecked_notes(report):
        unchecked = ["device"]
    inapplicable = {n.get("check") for n in report.not_applicable}
    checks += [(str(c), "not applicable") for c in _CHECKS
               if str(c) not in ran_names and str(c) not in unchecked and str(c) in inapplicable]
    return cases, checks, unchecked


def _unchecked_notes(report: Report) -> list[str]:
    return [n for n in report.notes if isinstance(n, str) and n.startswith(_UNCHECKED)]


def _check_notes(report: Report, width: int) -> Fragments:
    """Why a fake-tensor check did not run (grader/fake/scale.py's note), so a missing
    'device' in the headline is explained; and why a check the headline calls not applicable does not apply."""
    out: Fragments = [("class:dim", _wrap(n, width, "  ", "    ")) for n in _unchecked_notes(report)]
    grouped: dict[tuple[str, str], list[str]] = {}  # (check, why) -> the functions it is said of
    ran = {str(c.kind) for c in report.cases}
    for n in report.not_applicable:
        if n.get("check") in ran:  # it applies to another function, and ran there: --json lists this one
            continue
        grouped.setdefault((n.get("check", ""), n.get("why", "")), []).append(n.get("function", ""))
    merged: dict[tuple[str, tuple[str, ...]], list[str]] = {}  # (why, functions) -> the checks it is said of
    for (check, why), functions in grouped.items():
        merged.setdefault((why, tuple(functions)), []).append(check)
    for (why, names), checks in merged.items():
        label = " and ".join({"device": "device case", "gradient": "gradient case"}.get(c, c) for c in checks)
        named = [f"{f}()" for f in names if f]
        where = f" to {', '.join(named)}" if named else ""
        out.append(("class:dim", _wrap(printable(f"{label}: not applicable{where} — {why}"), width, "  ", "    ")))
    return out


def _case_lines(case: CaseResult, width: int) -> Fragments:
    out: Fragments = [("class:head", f"  case {printable(case.name)}"),
                      ("class:dim", f" · {printable(case.function)}() · {case.verdict}")]
    dims = dims_text(case.dims)
    fits = len(out[0][1]) + len(out[1][1]) + 3 + len(dims) <= width - 1
    if dims and fits:
        out += [("class:dim", " · "), ("class:dims", dims)]
    out.append(("", "\n"))
    if dims and not fits:  # too wide for the case's line (the terminal would break it inside a size): a line of their own
        out.append(("class:dims", _wrap(dims, width, "    ")))
    if case.inputs:
        out.append(("class:dim", _wrap(f"inputs: {case.inputs}", width, "    ", "      ")))
    if case.message:
        out.append(("", _wrap(case.message, width, "    ", "      ")))
    return out


def _printed(report: Report, width: int) -> Fragments:
    lines = [line for line in printable_lines(report.output.strip()) if line.strip()][:_PRINTED_LINES]
    if not lines:
        return []
    return [("class:dim", _wrap("it printed: " + " | ".join(lines), width, "  ", "    ", max_lines=3))]


def _scale_line(report: Report, width: int) -> Fragments:
    """After a pass: the solution's peak memory at the drill's scale sizes against the
    reference's (grader.fake.scale's sentence), the question an interviewer asks next."""
    text = (report.scale or {}).get("text")
    if not isinstance(text, str) or not text:
        return []
    return [("class:dim", _wrap(text, width, "  ", "    "))]


def grading_note(seconds: float) -> str:
    """`, grading excluded (0:31)` once the grader's time is worth saying (a second or more): the
    time shown is the person's, not the grader's."""
    return f", grading excluded ({mmss(seconds)})" if seconds >= 1.0 else ""


def _pass_lines(info: PassInfo, width: int, scale: Fragments) -> Fragments:
    out: Fragments = []
    spare = info.target - info.elapsed
    out.append(("", f" · solved in {mmss(info.elapsed)}{grading_note(info.grading)}, target {mmss(info.target)}"))
    if spare >= 0:
        out.append(("class:pass", f" ({mmss(spare)} to spare)\n"))
    else:
        out.append(("class:over", f" ({mmss(-spare)} over)\n"))
    out += scale
    if info.due is not None:
        out.append(("class:dim", f"  Back for review {when(info.due, info.now)}.\n"))
    if info.reference:
        out.append(("class:head", f"  {info.reference_title}:\n"))
        for line in info.reference.splitlines():
            out.append(("class:code", f"    {line}\n"))
    if info.seed_trap.strip():
        out.append(("class:head", "  The trap this drill is about:\n"))
        out.append(("class:why", _wrap(" ".join(info.seed_trap.split()), width, "    ")))
    return out


def _smallest_lines(report: Report, width: int) -> Fragments:
    """Under the shown case: the smallest sizes that still fail it, when searched."""
    found, shown = report.smallest, report.shown_case
    if found is None or shown is None or found.case != shown.name:
        return []
    return [("class:dims", _wrap(smallest_text(found), width, "    ", "      "))]


def smallest_text(smallest: Smallest) -> str:
    """'smallest failing: B=2 T=3 ...; it fails at every size tried of B, T and dh; it passes when G = 1
    (H = H_kv)' (grader.judge.smallest's search, in words: only what it tried; a size it could not lower
    keeps a size of its own, distinct from the others)."""
    head = "smallest failing" if smallest.complete else "smaller failing (the search stopped at its time limit)"
    text = f"{head}: {dims_text(smallest.sizes)}"
    free = [printable(f) for f in smallest.free]
    if free:
        names = free[0] if len(free) == 1 else ", ".join(free[:-1]) + " and " + free[-1]
        text += f"; it fails at every size tried of {names}"
    conditions = []
    for dim, sizes in smallest.passes.items():
        ties = [f"{a} = {b}" for a in sizes for b in sizes
                if a < b and sizes[a] == sizes[b] > 1 and smallest.sizes.get(a) != smallest.sizes.get(b)]
        conditions.append(f"{dim} = 1" + (f" ({', '.join(ties)})" if ties else ""))
    if conditions:
        text += "; it passes when " + ", or ".join(conditions)
    if smallest.unbuilt:
        text += "; the drill could not build the case at " + ", nor at ".join(dims_text(u) for u in smallest.unbuilt) \
            + " (left out)"
    return text


def dims_text(dims: dict) -> str:
    """B=2 T=5 ...: a case's dimension sizes, printable."""
    return " ".join(f"{printable(k)}={printable(v)}" for k, v in dims.items())


def _wrap(text: str, width: int, indent: str, more: str | None = None, max_lines: int | None = None) -> str:
    """One paragraph of untrusted text, made printable and wrapped once to the width."""
    body = printable(" ".join(str(text).split()))
    lines = textwrap.wrap(body, width=max(20, width - 1), initial_indent=indent,
                          subsequent_indent=indent if more is None else more,
                          break_long_words=True, break_on_hyphens=False, max_lines=max_lines,
                          placeholder=" …") or [indent]
    return "\n".join(lines) + "\n"


def style_of(verdict: str) -> str:
    return {"pass": "class:pass", "internal": "class:internal"}.get(str(verdict), "class:fail")


def when(due: datetime, now: datetime | None) -> str:
    """'in 10 minutes', 'today at 14:05 (in 3 hours)', 'tomorrow at 09:00', 'in 3 days (Fri 04 Dec)':
    trainer.schedule.due words it by the local calendar, as the warm-up's "due tomorrow" counts."""
    from trainer.schedule.due import when as due_when

    return due_when(due, now)


def plain(fragments: Fragments) -> str:
    return "".join(fragment[1] for fragment in fragments)


_ANSI = {"pass": "32", "fail": "31", "internal": "35", "trap": "33", "dim": "2", "head": "1", "dims": "36",
         "over": "31", "bold": "1"}


def ansi(fragments: Fragments, color: bool = True) -> str:
    """Fragments as terminal text: SGR colours from the style classes, or plain text."""
    if not color:
        return plain(fragments)
    out = []
    for style, text, *_ in fragments:
        codes = [_ANSI[w.removeprefix("class:")] for w in style.split() if w.removeprefix("class:") in _ANSI]
        if codes and text.strip():
            body, end = (text[:-1], "\n") if text.endswith("\n") else (text, "")
            out.append(f"\x1b[{';'.join(codes)}m{body}\x1b[0m{end}")
        else:
            out.append(text)
    return "".join(out)
