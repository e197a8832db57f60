"""One sitting's state, apart from the screen: what the person has done on this drill so
far (submits, hints, a revealed solution, the pass, the last grade) and the outcome the
sitting ends with.

The `:`-commands (trainer.repl.actions) change it only through its methods; the screen
(trainer.repl.app) reads it. It holds no prompt_toolkit object and no clock: times come
in as `clock.monotonic()` readings, so it is tested on its own (tests/trainer/repl/test_state.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from grader.report import Report, Verdict
from trainer.repl.code import essence, untouched

if TYPE_CHECKING:
    from grader.rounds import Planted


@dataclass
class ReplOptions:
    """How a sitting is set up: by `drill solve`, or by a warm-up, mock or team run."""

    mode: str = "solve"  # the attempt mode recorded: solve | warmup | mock | team
    locked: frozenset[str] = frozenset()  # commands refused here (mock: hint, try, solution)
    deadline: float | None = None  # clock.monotonic() at which a mock interview or a team session ends
    flow_id: int | None = None  # the store's sessions row of the warm-up, mock or team run (NewAttempt.session_id)
    seed: int | None = None
    vi: bool = False
    label: str = ""  # "warm-up 2/5" in the bar
    in_flow: bool = False  # a drill of a warm-up, mock or team run: a pass offers :next, leaving asks
    last: bool = False  # ... its last item: what Enter goes on to after a pass is the summary
    next_text: str = ""  # ... or this, when it is neither ("the follow-up" in a mock)
    show_reference: bool = True
    # solve: after a pass, the next drill to offer ("masked-mean (due)") and its id, or None
    next_drill: Callable[[], tuple[str, str] | None] | None = None
    # called with the drill's outcome as soon as it passes (a team run writes the member's
    # results file then, not only when the drill is left: the terminal may close first)
    on_pass: Callable[["DrillOutcome"], None] | None = None
    # a debug round (grader.rounds): the buffer opens on its planted code, the attempts are kind
    # 'debug', and a pass is followed by where the bug was (trainer.text.debrief)
    debug: Planted | None = None
    # a mock's follow-up (trainer.practice.flows): the buffer opens on the person's own passing code,
    # the spec is the variant asked for, the attempts are kind 'followup'
    followup: FollowUpAsk | None = None


@dataclass(frozen=True)
class FollowUpAsk:
    """An interviewer's follow-up on the drill just passed: `code` is the buffer that passed (kept, to
    adapt), `ask` the paragraphs the output pane opens with (what changed, in the interviewer's words)."""

    code: str
    ask: tuple[str, ...]


@dataclass
class DrillOutcome:
    drill: str
    status: str  # passed | failed | skipped | quit | timeout
    verdict: str | None = None
    seconds: float = 0.0
    attempts: int = 0
    hints: int = 0
    traps: list[str] = field(default_factory=list)
    revealed: bool = False
    stop: bool = False  # the person asked to end the whole warm-up, mock or team run
    draft: bool = False  # the buffer was left as a draft
    report: Report | None = None  # the last graded report
    code: str = ""  # the code that report graded
    next_drill: str | None = None  # solve: the person asked for this drill next
    submits: int = 0  # graded submits up to the first pass (a revealed solution and re-submits after it aside)
    revealed_at: float | None = None  # seconds into the drill when the reference was revealed
    grading_seconds: float = 0.0  # the grader's time up to the pass (or the leaving), not in `seconds`


class SittingState:
    """The counts of one sitting on one drill. Read its attributes; change them through
    its methods."""

    def __init__(self, drill: str, skeleton: str, started: float, deadline: float | None = None):
        self.drill = drill
        self.skeleton = skeleton
        self.started = started  # clock.monotonic() when the drill opened
        self.deadline = deadline  # clock.monotonic() at which a mock interview or a team session ends
        self.attempts = 0  # graded submits, and a revealed solution
        self.submits = 0  # graded submits up to the first pass: what the exit line counts
        self.revealed_at: float | None = None  # seconds into the drill at the reveal
        self.hints = 0
        self.traps: list[str] = []  # the trap of each graded submit that fell into one
        self.revealed = False
        self.passed_at: float | None = None
        self.last_result: Report | None = None
        self.graded_code = ""  # the source of the last graded report
        self.results: list[Report] = []  # every graded report, in order
        self.submitted_text = skeleton  # the source of the latest submit
        self.next_offer: tuple[str, str] | None = None  # solve, after a pass: (label, drill id)
        self.next_drill: str | None = None  # the drill the person asked to open next

    # ------------------------------------------------------------- reading

    def passed(self) -> bool:
        return self.passed_at is not None

    def elapsed(self, now: float) -> float:
        """Seconds on this drill at `now`: up to the pass, or to the run's 0:00."""
        end = self.passed_at if self.passed_at is not None else now
        if self.deadline is not None:
            end = min(end, self.deadline)
        return max(0.0, end - self.started)

    def left(self, now: float) -> float | None:
        """Seconds left before the deadline; None without one."""
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - now)

    def unsubmitted(self, text: str) -> bool:
        """`text` (the buffer) holds work that no submit has graded."""
        return not untouched(text, self.skeleton) and essence(text) != essence(self.submitted_text)

    # ------------------------------------------------------------ changing

    def submitting(self, source: str) -> None:
        """A submit of `source` went to the grader (it is no longer unsubmitted work)."""
        self.submitted_text = source

    def graded(self, report: Report, source: str, elapsed: float) -> Verdict:
        """A submit's grade came back: one more attempt; a first pass stops the drill's time
        at `elapsed` (seconds from the opening to the submit). Returns the verdict."""
        self.attempts += 1
        if not self.passed():
            self.submits += 1
        self.last_result = report
        self.graded_code = source
        self.results.append(report)
        verdict = Verdict.of(report.verdict)
        if report.trap:
            self.traps.append(report.trap.id)
        if verdict == Verdict.PASS and not self.passed():
            self.passed_at = self.started + elapsed
        return verdict

    def hint_shown(self, available: int) -> int:
        """The person asked for the next hint of `available`; returns how many are now shown
        (it stops at the last one: asking again counts nothing)."""
        if self.hints < available:
            self.hints += 1
        return self.hints

    def reveal(self, elapsed: float | None = None) -> bool:
        """The reference was shown. Before a pass, the first reveal counts as a failed attempt:
        True then (the caller records it); False when it counts nothing."""
        if self.passed() or self.revealed:
            return False
        self.revealed = True
        self.revealed_at = elapsed  # seconds into the drill: the exit line says when
        self.attempts += 1
        return True


    def offer_next(self, offer: tuple[str, str] | None) -> None:
        """solve, after a pass: the next drill to offer, (label, drill id), or None."""
        self.next_offer = offer

    def chose_next(self) -> bool:
        """The person took the offered next drill; False when there is none to take."""
        if not self.passed() or self.next_offer is None:
            return False
        self.next_drill = self.next_offer[1]
        return True

    # ------------------------------------------------------------ the end

    def outcome(self, status: str, seconds: float, *, stop: bool = False, draft: bool = False) -> DrillOutcome:
        """What the sitting came to when the person left with `status` (quit | skipped | next |
        timeout): a sitting that passed stays passed; `next` without a pass is a fail."""
        if self.passed() and status in ("quit", "skipped", "next", "timeout"):
            status = "passed"
        elif status == "next":
            status = "failed"
        verdict = str(self.last_result.verdict) if self.last_result else None
        return DrillOutcome(self.drill, status, verdict, seconds, self.attempts, self.hints,
                            list(self.traps), self.revealed, stop, draft, self.last_result,
                            self.graded_code if self.last_result else "", self.next_drill, self.submits,
                            self.revealed_at)
