"""Practice commands: `drill solve`, `warmup`, `mock` and `watch`.

The flows themselves live in trainer.practice.flows (pure logic on a TimedQueue),
trainer.cli.timed (the one loop that runs them) and trainer.repl (the editor);
this module wires them to the store, the grader and the terminal.
"""
from __future__ import annotations

import random
import shutil
import sys
import textwrap
import time
from dataclasses import replace
from functools import partial
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

import typer
from prompt_toolkit import PromptSession
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.shortcuts import print_formatted_text

import trainer.repl.grading as repl_grading
from grader.errors import UsageError
from trainer.cli.app import app, checked_seed
from trainer.cli.catalogue import check_topic, complete_drill_id, get_spec_or_exit, load_catalogue_or_exit
from grader import rounds
from trainer.cli.timed import Done, open_drill, run_queue
from trainer.schedule.due import Agenda, agenda_now, clock_time, focus, read_agenda, when
from trainer.text.markup import printable
from trainer.repl import quickfire
from trainer.repl.app import DrillOutcome, ReplOptions
from trainer.repl.state import FollowUpAsk
from trainer.repl.trace_view import unnarrated_lines
from trainer.clock import PersonClock, SystemClock
from trainer.repl.style import repl_style
from trainer.practice.watch import watch
from trainer.practice.flows import (
    DrillItem,
    FollowUp,
    ItemResult,
    Mock,
    QuizItem,
    Warmup,
    askable_alone,
    choose_mock_drills,
    followup_ask,
    plan_warmup,
    standalone,
    weakness,
    with_debug_rounds,
)
from trainer.practice.sittings import SittingRecorder, WatchSitting
from trainer.practice.variants import followup_variant, history_of, served
from trainer.store import StoreError, open_store
from trainer.reports import plural
from trainer.text.verdict import grading_note, mmss, plain, render

if TYPE_CHECKING:
    from grader.spec import Spec
    from trainer.repl.grading import Grading


def _vi_mode(flag: Optional[bool]) -> bool:
    if flag is not None:
        return flag
    try:
        with open_store() as store:
            return bool(store.settings().vi_mode)
    except StoreError:
        return False


def _say(text: str) -> None:
    """Print text folded at spaces to the terminal's width (a long line never breaks a word)."""
    width = max(40, shutil.get_terminal_size().columns - 1)
    lines = []
    for line in text.split("\n"):
        indent = " " * (len(line) - len(line.lstrip(" ")))
        more = indent + ("| ↪ " if line.lstrip().startswith("|") else "  ")  # code in a summary: marked
        lines += textwrap.wrap(line, width, subsequent_indent=more, break_on_hyphens=False) or [""]
    typer.echo("\n".join(lines))


def _served(spec: Spec, seed: int | str) -> Spec:
    """The drill under the variant the scheduler serves now (trainer.practice.variants): the
    default until it has been passed; the default too when the store cannot be read."""
    if not spec.variants:
        return spec
    try:
        with open_store() as store:
            attempts = store.attempts(drill=spec.id)
    except StoreError:
        return spec
    return served(spec, attempts, seed)


def _need_terminal() -> None:
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        raise UsageError("this command needs a terminal; use `drill check ID FILE` to grade a file")


@app.command("solve")
def solve(
    drill_id: str = typer.Argument(..., metavar="ID", help="the drill id, e.g. mha-padding",
                                   autocompletion=complete_drill_id),
    seed: Optional[int] = typer.Option(None, "--seed", callback=checked_seed, help="case seed (default: a new one per submit)"),
    vi: Optional[bool] = typer.Option(None, "--vi/--emacs", help="key bindings (default: the vi_mode setting)"),
    variant: List[str] = typer.Option([], "--variant", metavar="AXIS=VALUE",
                                      help="solve it under a variant (repeatable; `random` draws one)"),
) -> None:
    """The REPL on one drill: write it, :try it, :submit it. After a pass, Enter opens the
    next due or new drill. Without --variant the scheduler chooses the variant (the default
    until it has been passed; trainer.practice.variants)."""
    from grader.spec.variants import parse_variant_args

    spec = get_spec_or_exit(drill_id)
    chosen = parse_variant_args(spec, variant, seed) if variant else None
    spec = spec.under(chosen) if chosen is not None else _served(spec, seed if seed is not None else time.time_ns())
    _need_terminal()
    vi_mode = _vi_mode(vi)
    grading = repl_grading.open_grading()  # the worker starts importing torch now, while the person reads
    try:
        while spec is not None:
            current = spec.id
            outcome = open_drill(spec, grading, ReplOptions(
                mode="solve", seed=seed, vi=vi_mode, next_drill=partial(_next_drill_offer, current)))
            _say(_outcome_line(outcome))  # before the worker's shutdown, which may take a moment
            spec = _served(get_spec_or_exit(outcome.next_drill), seed if seed is not None else time.time_ns()) \
                if outcome.next_drill else None
    finally:
        grading.close()


def _next_drill_offer(current: str) -> tuple[str, str] | None:
    """After a pass: the first drill due now, else the next new drill the plan allows today
    (trainer.schedule.due, the one answer to "what is due"), as ("id (due)", id); None for neither."""
    agenda = agenda_now(list(load_catalogue_or_exit().specs))
    due = [d for d in agenda.due if d != current]
    if due:
        return f"{due[0]} (due)", due[0]
    new = [d for d in agenda.new if d != current]
    return (f"{new[0]} (new)", new[0]) if new else None


def _submits(n: int) -> str:
    return f"{n} submit" + ("" if n == 1 else "s")


def _revealed(outcome: DrillOutcome) -> str:
    if not outcome.revealed:
        return ""
    at = f" at {mmss(outcome.revealed_at)}" if outcome.revealed_at is not None else ""
    return f" You revealed the reference solution{at} (recorded as a fail)."


def _outcome_line(outcome: DrillOutcome) -> str:
    """The line printed when the person leaves a drill. Submits count the graded ones up to the
    first pass: a revealed solution is said apart, and re-submits after a pass are not counted."""
    if outcome.status == "passed":
        return (f"{outcome.drill}: passed in {mmss(outcome.seconds)}{grading_note(outcome.grading_seconds)} "
                f"after {_submits(outcome.submits)}." + _revealed(outcome))
    if outcome.status == "timeout":
        graded = f" Your last buffer was graded: {outcome.verdict}." if outcome.verdict else ""
        return f"{outcome.drill}: time ran out.{graded}" + _revealed(outcome)
    if outcome.status == "skipped" and not outcome.attempts:
        return f"{outcome.drill}: skipped; nothing recorded."
    tail = f" Your buffer is saved as a draft; `drill solve {outcome.drill}` picks it up." \
        if outcome.draft else ""
    return (f"{outcome.drill}: left after {mmss(outcome.seconds)}{grading_note(outcome.grading_seconds)} "
            f"({_submits(outcome.submits)})."
            + _revealed(outcome) + tail)


# ------------------------------------------------------------------ warm-up


def _run_drill(spec: Spec, grading: Grading, options: ReplOptions,
               sitting: SittingRecorder | None = None, clock: PersonClock | None = None) -> DrillOutcome:
    """One drill of a warm-up or mock in the REPL (tests replace it with a stand-in); with
    `sitting`, its submits go into that sitting, which the caller closes. `clock` is the flow's:
    the one its countdown runs on, stopped while a submit is graded."""
    return open_drill(spec, grading, options, clock=clock, sitting=sitting)


def _drill_result(item: DrillItem, outcome: DrillOutcome, spec: Spec | None = None, indent: int = 2) -> ItemResult:
    """The warm-up's or mock's record of one drill: its status, and its last grade (verdict, the
    failing case, the compact verdict, folded to be shown `indent` columns in, and the code graded)."""
    report = outcome.report
    detail: tuple[str, ...] = ()
    failing = None
    if report is not None:
        width = min(100, shutil.get_terminal_size().columns) - indent
        detail = tuple(plain(render(report, "compact", width=width, title=False)).rstrip("\n").split("\n"))
        failing = report.shown_case.name if report.shown_case and report.verdict != "pass" else None
    return ItemResult(item, outcome.status, outcome.seconds, outcome.attempts, outcome.hints,
                      tuple(outcome.traps), outcome.revealed, outcome.verdict, failing, detail, outcome.code,
                      dict(spec.variant) if spec is not None else {})


@app.command("warmup")
def warmup(
    count: int = typer.Option(3, "--count", "-n", min=0, help="at most this many drills"),
    minutes: Optional[float] = typer.Option(None, "--minutes", "-m", min=1, help="stop starting new items after this long"),
    more: bool = typer.Option(False, "--more", help="when nothing is due and today's new drills are used up, "
                              "study more without asking: new drills beyond the daily limit, then reviews ahead"),
    topic: Optional[str] = typer.Option(None, "--topic", help="only this topic's due and new drills"),
    vi: Optional[bool] = typer.Option(None, "--vi/--emacs", help="key bindings (default: the vi_mode setting)"),
) -> None:
    """The daily warm-up: due reviews first, then new drills, quick-fire questions mixed in."""
    cat = load_catalogue_or_exit()
    check_topic(topic, cat)
    _need_terminal()
    clock = PersonClock(SystemClock())  # the person's time: it stops while a submit is graded
    now = clock.now().astimezone()
    in_topic = [d for d, s in cat.specs.items() if topic is None or s.topic == topic]
    with open_store() as store:
        settings = store.settings()
        whole = read_agenda(store, cat.specs, now)
        agenda = focus(whole, in_topic)
        passed = {d for d, s in store.drill_summaries().items() if s.passes}
    elsewhere = [d for d in whole.due if d not in set(in_topic)] if topic else []
    vi_mode = settings.vi_mode if vi is None else vi
    due, new = list(agenda.due), list(agenda.new)
    if agenda.nothing_left and count > 0:
        _say(_nothing_left_text(agenda))
        due, new = agenda.study_more(count)
        if not due and not new:
            typer.echo("Every drill is met and none has a review scheduled; `drill mock` is next.")
            return
        if not more and not _confirm_more(len(new), len(due)):
            _say("Nothing more today. `drill warmup --more` studies ahead without asking.")
            return
    askable = {d: askable_alone(s.quiz) for d, s in cat.specs.items()}
    items = plan_warmup(due, new, askable, count, seed=int(now.timestamp()),
                        topics={d: s.topic for d, s in cat.specs.items()})
    debuggable = {d for d in passed if d in cat.specs and rounds.has_rounds(cat.get(d).path, d)}
    items = with_debug_rounds(items, debuggable, settings.debug_share, seed=int(now.timestamp()))
    drills = [i for i in items if isinstance(i, DrillItem)]
    questions = len(items) - len(drills)
    if not items:
        typer.echo("Nothing to warm up on today (--count 0).")
        return
    with open_store() as store:
        warmup_id = store.start_session("warmup", {"count": count, "minutes": minutes, "due": due, "new": new,
                                                    "more": agenda.nothing_left, "topic": topic})
    flow = Warmup(items, clock, minutes)
    n_due = sum(i.reason == "review" for i in drills)
    kind = ("ahead of time" if agenda.nothing_left else "due")
    _say(f"Warm-up{f' on {topic}' if topic else ''}: {len(drills)} drill(s) ({n_due} {kind}, {len(drills) - n_due} new), "
         f"{questions} quick-fire question(s) in between.")
    if elsewhere:
        _say(f"{plural(len(elsewhere), 'drill')} of other topics {'is' if len(elsewhere) == 1 else 'are'} due too "
             f"({', '.join(elsewhere[:3])}{', ...' if len(elsewhere) > 3 else ''}): `drill warmup` without --topic "
             f"takes them.")
    grading = repl_grading.open_grading()
    done_drills = done_questions = 0

    def drill(item: DrillItem | QuizItem) -> Done[ItemResult]:
        nonlocal done_drills
        assert isinstance(item, DrillItem)  # the quick-fire questions go to quiz()
        done_drills += 1
        options = ReplOptions(mode="warmup", flow_id=warmup_id, vi=vi_mode,
                              label=f"warm-up {done_drills}/{len(drills)}", in_flow=True,
                              last=done_drills == len(drills))  # the quick-fire questions come before their drill
        if item.debug:  # a debug round is planted in the contract's code (grader.rounds): the default variant
            spec = cat.get(item.drill)
            options.debug = rounds.serve(spec.path, item.drill, seed=int(now.timestamp()) + done_drills)
            options.show_reference = False
            options.label += " · debug: find the bug"
        else:
            spec = _served(cat.get(item.drill), warmup_id)
        outcome = _run_drill(spec, grading, options, clock=clock)
        _say(_outcome_line(outcome))
        return Done(_drill_result(item, outcome, spec), stop=outcome.stop and outcome.status != "timeout")

    def quiz(item: QuizItem) -> Done[ItemResult]:
        nonlocal done_questions
        done_questions += 1
        result = quickfire.ask(item.drill, cat.get(item.drill).quiz[item.index], clock=clock,
                               label=f"{done_questions}/{questions}")
        stop = result.stop or not _go_on(last=not drills and done_questions == questions)
        return Done(ItemResult(item, result.status, result.seconds), stop=stop)

    run_queue(flow.queue, grading, drill, quiz)
    with open_store() as store:
        after = focus(read_agenda(store, cat.specs, clock.now().astimezone()), in_topic)
        summary = flow.summary([d for d, _ in after.tomorrow])
        store.end_session(warmup_id, summary.to_dict())
    lines = summary.lines()  # its last line says what is due tomorrow
    _say("\n".join(lines[:-1] + _later_today_lines(after) + lines[-1:]))


def _nothing_left_text(agenda: Agenda) -> str:
    if agenda.fresh:
        text = (f"Nothing is due now, and today's new drills are used up ({agenda.introduced_today} met "
                f"today; daily_new_limit is {agenda.new_limit}).")
    else:
        text = "Nothing is due now, and every drill has been met."
    if agenda.next_review is not None:
        drill, at = agenda.next_review
        text += f" Next review: {drill} {when(at, agenda.now)}."
    return text


def _confirm_more(new: int, ahead: int) -> bool:
    """Anki's "study more": ask before going past today's plan."""
    what = " and ".join(p for p in (f"{new} new drill(s) beyond today's limit" if new else "",
                                    f"{ahead} review(s) ahead of time" if ahead else "") if p)
    try:
        return typer.confirm(f"Study more: {what}?", default=False)
    except typer.Abort:
        return False


def _later_today_lines(agenda: Agenda) -> list[str]:
    """What is due now and what comes back later today (both, when both are true)."""
    out = []
    if agenda.due:
        out.append(f"Due now: {len(agenda.due)} ({', '.join(agenda.due[:6])}"
                   + (", ..." if len(agenda.due) > 6 else "") + ")")
    if agenda.later_today:
        shown = ", ".join(f"{d} at {clock_time(t, agenda.now)}" for d, t in agenda.later_today[:4])
        out.append(f"Back later today: {shown}" + (", ..." if len(agenda.later_today) > 4 else ""))
    return out


def _go_on(flow: str = "warm-up", last: bool = False) -> bool:
    """Hold the quick-fire verdict on screen until Enter; False on Ctrl-C (end the warm-up or mock)."""
    try:
        PromptSession().prompt(f"  Enter: the summary, Ctrl-C: end the {flow} " if last else
                               f"  Enter: next item, Ctrl-C: end the {flow} ")
    except (KeyboardInterrupt, EOFError):
        return False
    return True


def _ready(prompt: str) -> bool:
    """Wait for Enter before a clock starts; False on Ctrl-C or a closed input (nothing starts)."""
    try:
        PromptSession().prompt(prompt)
    except (KeyboardInterrupt, EOFError):
        return False
    return True


# --------------------------------------------------------------------- mock


MOCK_LOCKED = frozenset({"hint", "try", "solution"})


@app.command("mock")
def mock(
    minutes: float = typer.Option(30, "--minutes", "-m", min=0.1,
                                  help="the whole interview's time limit (0.5 is 30 seconds)"),
    count: int = typer.Option(3, "--count", "-n", min=1, help="how many drills"),
    seed: Optional[int] = typer.Option(None, "--seed", callback=checked_seed, help="choose drills and cases from this seed"),
    topic: Optional[str] = typer.Option(None, "--topic", help="only drills of this topic"),
    vi: Optional[bool] = typer.Option(None, "--vi/--emacs", help="key bindings (default: the vi_mode setting)"),
    followups: bool = typer.Option(True, "--followups/--no-followups",
                                   help="after a pass, while time is left, a follow-up on the same drill: a "
                                        "variant of it (your code kept) or a quick-fire question"),
    narrate: bool = typer.Option(False, "--narrate",
                                 help="say every shape: a shape comment on each line that makes a tensor; "
                                      "wrong or missing ones cost points"),
) -> None:
    """A timed mock interview: one countdown that does not pause, no hints or solutions. After a
    pass comes a follow-up on the same drill (--no-followups: none)."""
    cat = load_catalogue_or_exit()
    check_topic(topic, cat)
    _need_terminal()
    clock = PersonClock(SystemClock())  # the person's time: it stops while a submit is graded
    seed = seed if seed is not None else random.SystemRandom().randrange(1, 10**6)
    now = clock.now()
    with open_store() as store:
        summaries = store.drill_summaries()
        held = store.held(now)
        vi_mode = store.settings().vi_mode if vi is None else vi
    weak = {d: weakness(s.attempts, s.passes, s.due, now, s.card.lapses if s.card else 0)
            for d, s in summaries.items()}
    pool = [(s.id, s.topic) for s in sorted(cat.specs.values(), key=lambda s: s.id)
            if (topic is None or s.topic == topic) and s.id not in held]
    drills = choose_mock_drills(pool, weak, count, seed)
    if not drills:
        raise UsageError("no drills to choose from" + (f" in topic {topic} (every one is suspended or buried; "
                                                  f"`drill list --topic {topic}` shows them)" if topic else
                                                  " (every drill is suspended or buried; `drill list` shows them)"))
    if len(drills) < count:
        where = f"topic {topic} has" if topic else "the catalogue has"
        _say(f"--count {count}: {where} {len(drills)} drill{'s' if len(drills) != 1 else ''} to choose from, "
             f"so this mock has {len(drills)}.")
    _say(f"Mock interview: {len(drills)} drill{'s' if len(drills) != 1 else ''} in {minutes:g} min, seed {seed}. "
         "The clock does not stop; hints, :try and :solution are locked."
         + (" After a pass the interviewer asks a follow-up on the same drill." if followups else "")
         + (" Narrate: write the shape each line makes as a comment (# (B, H, T, S)) on it or just above it; "
            "a wrong or missing one costs points." if narrate else ""))
    if not _ready(f"  Enter: start the {minutes:g}-minute clock, Ctrl-C: not now "):
        typer.echo("No mock started; nothing recorded.")
        return
    with open_store() as store:  # the rules were read: the clock starts now, not while they were on screen
        mock_id = store.start_session("mock", {"seed": seed, "minutes": minutes, "drills": drills, "topic": topic,
                                               "followups": followups, "narrate": narrate})
    flow = Mock(drills, minutes, seed, clock, followups=followups, narrate=narrate)
    grading = repl_grading.open_grading()

    def drill(drill_id: str) -> Done[ItemResult]:
        pos, total = flow.queue.position()
        options = ReplOptions(mode="mock", locked=MOCK_LOCKED, deadline=flow.queue.deadline, flow_id=mock_id,
                              seed=seed, vi=vi_mode, label=f"mock {pos}/{total}" + (" · narrate" if narrate else ""),
                              in_flow=True, show_reference=False, last=pos == total,
                              next_text="the follow-up" if followups else "")
        spec = _served(cat.get(drill_id), seed)
        sitting = SittingRecorder()  # the drill and its follow-up: one sitting, one review
        follow: FollowUp | None = None
        outcome = _run_drill(spec, grading, options, sitting=sitting, clock=clock)
        stop = outcome.stop and outcome.status != "timeout"
        try:
            if followups and outcome.status == "passed" and not outcome.stop and not flow.queue.time_up():
                follow, stop = _mock_followup(spec, outcome, grading, replace(options, next_text=""), sitting, seed, clock)
        finally:
            sitting.close(outcome.status, revealed=outcome.revealed, hints=outcome.hints)
        result = _drill_result(DrillItem(drill_id, "mock"), outcome, spec)
        comments = (_shape_comments(grading, spec, outcome, seed) if narrate
                    else list(outcome.report.shape_comments) if outcome.report is not None else [])
        return Done(replace(result, followup=follow, shape_comments=tuple(comments)), stop=stop)

    def narration(results: list[ItemResult]) -> list[ItemResult]:
        """Narrate, once the clock has stopped: each passing code's lines that make a tensor on the
        example inputs (the `:try` trace) with no shape comment."""
        if not narrate:
            return results
        out = []
        for r in results:
            if r.status == "passed" and r.code.strip():
                trace = grading.trace(r.item.drill, r.code, "<buffer>", seed=seed, variant=dict(r.variant) or None)
                r = replace(r, unnarrated=unnarrated_lines(r.code, trace))
            out.append(r)
        return out

    if narrate:
        _say("When the time is up, your passing code is run once more on the example inputs to check "
             "its shape comments.")
    run_queue(flow.queue, grading, drill, last=narration)
    report = flow.report({d: float(cat.get(d).target_seconds) for d in drills})
    with open_store() as store:
        store.end_session(mock_id, report.to_dict())
    _say("\n".join(report.lines(shutil.get_terminal_size().columns)))


def _shape_comments(grading: repl_grading.Grading, spec: Spec, outcome: DrillOutcome, seed: int) -> list:
    """The shape comments of the code the last report graded, for the narration: the REPL asks for them after
    the verdict, in the background, and the drill may have ended before they came; then they are asked now."""
    report = outcome.report
    if report is None:
        return []
    if report.shape_comments or not repl_grading.comments_later(grading) or not repl_grading.has_comments(outcome.code):
        return list(report.shape_comments)
    found = grading.shape_comments(spec.id, outcome.code, "<buffer>",  # type: ignore[attr-defined]
                                   report.seed if report.seed is not None else seed, **repl_grading.variant_of(spec))
    return list(found or [])


def _mock_followup(spec: Spec, outcome: DrillOutcome, grading: Grading, options: ReplOptions,
                   sitting: SittingRecorder, seed: int, clock: PersonClock) -> tuple[FollowUp, bool]:
    """The interviewer's follow-up on a drill just passed, in the mock's remaining time: a variant
    of it with one axis changed (trainer.practice.variants.followup_variant), opened on the
    person's passing code and recorded in the drill's sitting as kind 'followup' (its review was
    decided by the pass: no second one); or, for a drill without variants, a quick-fire question
    from its quiz. Returns the follow-up and whether the person ended the mock."""
    base = spec.base or spec
    if base.variants:
        try:
            with open_store() as store:
                history = history_of(store.attempts(drill=spec.id))
        except StoreError:
            history = []
        variant = followup_variant(base.variants, spec.variant, history, f"{seed}:{spec.id}") or {}
        asked = base.under(variant)
        ask = followup_ask(spec, spec.variant, variant)
        fopts = replace(options, followup=FollowUpAsk(outcome.code, ask), label=f"{options.label} · follow-up")
        got = _run_drill(asked, grading, fopts, sitting=sitting, clock=clock)
        result = _drill_result(DrillItem(spec.id, "mock"), got, asked, indent=4)  # the summary's follow-up detail
        return (FollowUp("variant", ask[0], got.status, got.seconds, dict(variant), got.attempts, got.verdict,
                         result.detail, got.code), got.stop and got.status != "timeout")
    quiz = random.Random(f"followup-quiz:{seed}:{spec.id}").choice(standalone(spec.quiz))
    typer.echo(f"Follow-up on {spec.id}, answered the quick-fire way:")
    answer = quickfire.ask(spec.id, quiz, clock=clock, label=f"{options.label} · follow-up")
    stop = answer.stop or not _go_on("mock interview", last=options.last)
    return FollowUp("question", quiz.q, answer.status, answer.seconds, given=answer.given, answer=quiz.a), stop


# -------------------------------------------------------------------- watch


@app.command("watch")
def watch_command(
    drill_id: str = typer.Argument(..., metavar="ID", help="the drill id", autocompletion=complete_drill_id),
    file: Path = typer.Argument(..., metavar="FILE", help="the solution file to grade on every save"),
    seed: Optional[int] = typer.Option(None, "--seed", callback=checked_seed, help="case seed (default: a new one per grade)"),
    interval: float = typer.Option(0.3, "--interval", min=0.05, help="seconds between checks of FILE"),
    record: bool = typer.Option(False, "--record", help="record the saves up to the first pass as one sitting"),
    variant: List[str] = typer.Option([], "--variant", metavar="AXIS=VALUE",
                                      help="grade under a variant (repeatable); default: the contract as written"),
) -> None:
    """Grade FILE again each time it is saved (Ctrl-C stops)."""
    from grader.spec.variants import describe, parse_variant_args

    spec = get_spec_or_exit(drill_id)
    spec = spec.under(parse_variant_args(spec, variant, seed))
    if file.is_dir():
        raise UsageError(f"{file} is a folder; give a solution .py file")
    grading = repl_grading.open_grading()
    style = repl_style()
    sitting = WatchSitting(spec.id, float(spec.target_seconds)) if record else None
    width = shutil.get_terminal_size().columns
    _say(f"Watching {printable(file)} for {spec.id}" + (f" (variant {describe(spec.variant)})" if spec.variant else "")
         + "; every save is graded"
         + (", recorded up to the first pass as one sitting" if record else "") + ". Ctrl-C stops.")
    try:
        watch(file, lambda source: grading.grade(spec.id, source, str(file.resolve()), seed, **repl_grading.variant_of(spec)),
              lambda frags: print_formatted_text(FormattedText(frags), style=style, end=""),
              sleep=time.sleep, now=lambda: datetime.now().strftime("%H:%M:%S"), interval=interval,
              width=width, after=sitting.record if sitting else None)
    except KeyboardInterrupt:
        typer.echo("\nStopped watching (Ctrl-C).")
    finally:
        if sitting is not None:
            sitting.close()
        grading.close()
