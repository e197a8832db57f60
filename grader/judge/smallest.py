"""The smallest failing case: shrink a failing case's sizes, and find which dimensions do not matter.

After a failure, `search(grader, prep, source, ...)` takes the case the report shows and
looks for the smallest sizes at which the solution still fails it the same way (the same
verdict), as Hypothesis shrinks an example:

- only the dimensions the case draws move (a size the case fixes, such as B: 1, or ties,
  such as T: S, stays as the case has it); derived dimensions follow their formula
  (H = H_kv * G); every named dimension keeps a size of its own, as the case had
  (grader.dims), so a shape still reads back in names; and none goes below 2, where
  size 1 would let broadcasting hide the bug, nor outside its range in the spec (the
  drill's builders are proved only there: `drill validate`, grader.authoring.validation);
- each round builds every one-dimension step down as a case of its own, fresh inputs
  and the oracle's answer, and grades them all in one sandbox run (the warm grader's:
  grader.engine.Grader.smallest keeps its standby child aside), then takes the steps
  that still fail; rounds go on until no step fails or the time budget is spent;
- then each dimension of the smallest case is tried at other sizes (and at 1, where its
  range allows 1): one that fails at every size tried does not matter (`free`); a size 1
  at which the case passes is kept (`passes`), so the report can say "it passes when G = 1".

Every candidate is built in a forked child first, stopped at a deadline and at the
search's own (grader.cases.resize): one that does not finish is not buildable there.

Nothing here decides a verdict: the report's verdict is out before the search starts
(the REPL runs it after showing it; `drill check` within a budget). The result is a
grader.report.Smallest.
"""
from __future__ import annotations

import dataclasses
import time
from typing import Any

from grader.cases.prepare import Call, Prepared
from grader.cases.resize import built_at
from grader.dims import _distinct_enough, eval_expr, expr_names
from grader.report import Report, Smallest, Verdict

MAX_STEPS = 12  # sizes tried per dimension and round (the lowest first)
MAX_ROUNDS = 10
ALTERNATIVES = 3  # other sizes tried per dimension when asking whether it matters
BUDGET = 4.0  # seconds, for `drill check`
MAX_UNBUILT = 3  # sizes the case could not be built at, kept for the report


def search(grader: Any, prep: Prepared, source: str, filename: str, case: str, function: str,
           budget: float = BUDGET) -> Smallest | None:
    """The smallest failing sizes of `case` for `function`, or None when it cannot shrink."""
    t0 = time.monotonic()
    deadline = t0 + budget
    start = next((c for c in prep.calls if c.case.name == case and c.function.name == function), None)
    if start is None:
        return None
    space = _Space(prep, start)
    if not space.moving:
        return None
    runner = _Runner(grader, prep, source, filename, start, deadline)
    cur = {v: start.sizes[v] for v in space.moving}
    verdict: Verdict | None = None
    complete = False
    for _ in range(MAX_ROUNDS):
        if time.monotonic() > deadline:
            break
        steps = [(v, n) for v in space.moving for n in space.below(v, cur) if space.valid({**cur, v: n})]
        got = runner.verdict([space.full(cur)] + [space.full({**cur, v: n}) for v, n in steps])
        if verdict is None:  # the first round also grades the case itself at its own sizes, on fresh inputs
            if not isinstance(got[0], Verdict):
                return None  # it does not fail there (a flaky solution), or cannot be built again: say nothing
            verdict = got[0]
        got = got[1:]
        if runner.late:  # some steps were never built: what they would have said is not known
            break
        if not steps:
            complete = True
            break
        best: dict[str, int] = {}
        for (v, n), g in zip(steps, got):
            if g == verdict and n < best.get(v, cur[v]):
                best[v] = n
        if not best:
            complete = True
            break
        cur = _combine(space, runner, verdict, cur, best)
    sizes = space.full(cur)
    free: list[str] = []
    passes: dict[str, dict[str, int]] = {}
    if verdict is None:
        return None
    if complete and time.monotonic() < deadline:
        free, passes = _what_matters(space, runner, verdict, cur)
    return Smallest(case, function, {k: v for k, v in sizes.items() if k in space.named}, free, passes,
                    complete, time.monotonic() - t0,
                    [{k: v for k, v in u.items() if k in space.named} for u in runner.unbuilt[:MAX_UNBUILT]])


def _combine(space: _Space, runner: _Runner, verdict: Verdict, cur: dict[str, int],
             best: dict[str, int]) -> dict[str, int]:
    """Take every step that failed on its own, the largest first while the sizes stay distinct;
    when the steps together pass, only the largest one."""
    order = sorted(best, key=lambda v: (best[v] - cur[v], v))
    together = dict(cur)
    for v in order:
        if space.valid({**together, v: best[v]}):
            together[v] = best[v]
    single = {**cur, order[0]: best[order[0]]}
    if together != single and runner.verdict([space.full(together)])[0] == verdict:
        return together
    return single


def _what_matters(space: _Space, runner: _Runner, verdict: Verdict,
                  cur: dict[str, int]) -> tuple[list[str], dict[str, dict[str, int]]]:
    tries: list[tuple[str, int]] = []
    for v in space.moving:
        others = [n for n in space.around(v, cur) if space.valid({**cur, v: n})][:ALTERNATIVES]
        tries += [(v, n) for n in others]
        if cur[v] != 1 and space.allows_one(v):
            tries.append((v, 1))  # for the condition only: below the floor of 2, never a step
    got = runner.verdict([space.full({**cur, v: n}) for v, n in tries])
    free, passes = [], {}
    for v in space.moving:
        mine = [(n, g) for (w, n), g in zip(tries, got) if w == v and g is not None]  # None: not buildable there
        if any(n != 1 for n, _ in mine) and all(g == verdict for _, g in mine):
            free.append(v)
        if any(n == 1 and g is False for n, g in mine):
            sizes = space.full({**cur, v: 1})
            passes[v] = {k: sizes[k] for k in space.named if k in sizes}
    return [v for v in space.named if v in free], passes


class _Space:
    """The sizes a case may take: which dimensions move, their floors, and the case's rules."""

    def __init__(self, prep: Prepared, start: Call):
        spec, case = prep.spec, start.case
        self.rules = spec.dims
        self.fixed = {k: v for k, v in case.dims.items() if isinstance(v, int)}
        self.tied = {k: v for k, v in case.dims.items() if isinstance(v, str)}
        used = _names_used(start.function, self.rules)
        self.named = [n for n in self.rules if n in used and n in start.sizes]
        self.moving = [r.name for r in self.rules.values() if not r.derived and r.name in used
                       and r.name not in self.fixed and r.name not in self.tied]
        self.start = dict(start.sizes)

    def floor(self, v: str) -> int:
        return max(self.rules[v].low or 2, 2)

    def allows_one(self, v: str) -> bool:
        """Whether the spec's range for `v` takes a size of 1."""
        low = self.rules[v].low
        return low is not None and low <= 1

    def high(self, v: str, cur: dict[str, int]) -> int:
        """The largest size the search may give `v`: its range's top (or a few above the case's, unbounded)."""
        top = self.rules[v].high
        return top if top is not None else cur[v] + ALTERNATIVES + 2

    def below(self, v: str, cur: dict[str, int]) -> list[int]:
        return list(range(self.floor(v), min(cur[v], self.high(v, cur) + 1)))[:MAX_STEPS]

    def around(self, v: str, cur: dict[str, int]) -> list[int]:
        return sorted((n for n in range(self.floor(v), self.high(v, cur) + 1) if n != cur[v]),
                      key=lambda n: (abs(n - cur[v]), n))

    def each_size(self, v: str) -> list[int]:
        """Every size the search may give `v` (`drill validate` proves the builders at each)."""
        return ([1] if self.allows_one(v) else []) + list(range(self.floor(v), self.high(v, self.start) + 1))

    def full(self, moving: dict[str, int]) -> dict[str, int]:
        sizes = dict(self.start)
        sizes.update(moving)
        for name, other in self.tied.items():
            sizes[name] = sizes[other]
        for rule in self.rules.values():
            if rule.derived and rule.name not in self.fixed and rule.name not in self.tied:
                sizes[rule.name] = eval_expr(rule.expr or "0", sizes)
        for name, other in self.tied.items():
            sizes[name] = sizes[other]
        return sizes

    def valid(self, moving: dict[str, int]) -> bool:
        sizes = self.full(moving)
        if any(sizes[n] < 1 for n in self.named):
            return False
        return _distinct_enough(sizes, {n: r for n, r in self.rules.items() if n in self.named}, self.fixed, self.tied)


def _names_used(function: Any, rules: dict[str, Any]) -> set[str]:
    """The dimensions the function's shapes name, with what their formulas name."""
    found: set[str] = set()
    shapes = [a.shape for a in function.args if a.shape] + [r.shape for r in function.returns if getattr(r, "shape", None)]
    for shape in shapes:
        for s in shape:
            found.update(expr_names(str(s)))
    todo = list(found)
    while todo:
        rule = rules.get(todo.pop())
        for name in expr_names(rule.expr) if rule is not None and rule.derived else []:
            if name not in found:
                found.add(name)
                todo.append(name)
    return {n for n in found if n in rules}


class _Runner:
    """Grades the solution on cases built at given sizes, many in one sandbox run."""

    def __init__(self, grader: Any, prep: Prepared, source: str, filename: str, start: Call, until: float):
        self.grader, self.source, self.filename, self.start, self.until = grader, source, filename, start, until
        self.spec = dataclasses.replace(prep.spec, traps=())  # no trap attribution: only pass or fail
        self.prep = prep
        self.seen: dict[tuple, Verdict | bool | None] = {}
        self.unbuilt: list[dict[str, int]] = []  # sizes its builders or oracle could not build (grader.cases.resize)
        self.late = False

    def verdict(self, many: list[dict[str, int]]) -> list[Verdict | bool | None]:
        """Per sizes: the failing verdict, False when it passes, None when the case cannot be built there."""
        keys = [tuple(sorted(s.items())) for s in many]
        todo = [k for k in dict.fromkeys(keys) if k not in self.seen]
        built = built_at(self.prep, self.start, [dict(k) for k in todo], 0, self.until)
        calls = [c for c, _ in built if c is not None]
        for k, (call, known) in zip(todo, built):
            if call is None:
                self.seen[k] = None  # not buildable there (raised, or did not finish in time), or not tried
                if known:
                    self.unbuilt.append(dict(k))
                else:
                    self.late = True  # the search's time ran out before this build was tried or finished
        if calls:
            self._grade(calls, [k for k in todo if k not in self.seen])
        return [self.seen[k] for k in keys]

    def _grade(self, calls: list[Call], keys: list[tuple]) -> None:
        prep = Prepared(self.spec, self.prep.seed, calls, self.prep.reference)
        report = self.grader.grade_prepared(prep, self.source, self.filename)
        by_index = report.cases[:len(calls)]
        for k, res in zip(keys, by_index):
            v = Verdict.of(res.verdict)
            self.seen[k] = False if v == Verdict.PASS else v
        for k in keys[len(by_index):]:
            self.seen[k] = None


def for_report(grader: Any, report: Report, source: str, filename: str = "<buffer>",
               budget: float = BUDGET) -> Smallest | None:
    """The search for the case `report` shows (`target`), on the cases it was graded on; None when
    there is nothing to shrink. Never raises: the verdict is already out, the search only adds to it."""
    shown = report.shrink_target
    if shown is None or report.seed is None:
        return None
    try:
        prep = grader.prepared(grader.spec(report.drill, report.variant), report.seed)
        return search(grader, prep, source, filename, shown.name, shown.function, budget)
    except Exception:  # noqa: BLE001 - an extra: a failed search says nothing rather than break the verdict
        return None


def sizes_to_prove(prep: Prepared, start: Call) -> list[dict[str, int]]:
    """The sizes at which `drill validate` proves `start`'s builders and oracle (grader.authoring.validation):
    every dimension the search may move at the floor of its range, then each of them at every size of its
    range (a superset of the sizes the search asks for), the others at their floors; each with its own
    size, as the search keeps them, and derived ones following."""
    space = _Space(prep, start)
    if not space.moving:
        return []
    rules = space.rules
    span = {v: list(range(_low(rules[v]), space.high(v, space.start) + 1)) for v in space.moving}
    out: list[dict[str, int]] = []

    def floors(first: dict[str, int]) -> dict[str, int] | None:
        moving = dict(first)
        for v in space.moving:
            if v not in moving:
                moving[v] = next((n for n in span[v] if space.valid({**space.start, **moving, v: n})), span[v][0])
        return space.full(moving) if space.valid(moving) else None

    starts: list[dict[str, int]] = [{}] + [{v: n} for v in space.moving for n in span[v]]
    for first in starts:
        sizes = floors(first)
        if sizes is not None and sizes not in out:
            out.append(sizes)
    return out


def _low(rule: Any) -> int:
    return rule.low if rule.low is not None else 1
