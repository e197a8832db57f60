"""Which variant a practice sitting serves: the one place the choice is made.

A drill with variant axes (grader.spec: `Spec.variants`, each axis a name, its default
value and its values) keeps one FSRS card; its variants are siblings of that card,
not cards of their own. The practice flows (`drill solve`, `warmup`, `mock`) ask
`choose_variant` which one to serve, from the drill's own history of attempts:

- a first meeting, and every sitting until the default (the contract as written,
  `{}`) has been passed, is the default;
- after that each sitting draws a combination, scored value by value: a value whose
  last result was a fail scores highest, then a value never passed, then values by how
  long ago (in the drill's attempts) they were last passed; the best-scoring
  combinations are drawn among by the seed;
- never the exact combination passed last (so an answer typed from memory meets a
  question it does not answer).

A variant is the mapping of its NON-default choices (`{}` = the default), as
`Spec.variant` and the store's `attempts.variant` hold it. A fail counts against the
non-default values of the combination failed (the default values are the contract
the person has passed); a fail of the default counts against each axis's default.
A pass counts for every value of the combination, defaults included.
"""
from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Mapping, Protocol, Sequence

from grader.spec.combos import nth_of_product, product_index

if TYPE_CHECKING:
    from grader.spec import Spec


class AxisLike(Protocol):
    """What the choice needs of an axis (grader.spec's Axis): its name, default and values."""

    @property
    def name(self) -> str: ...

    @property
    def default(self) -> str: ...

    @property
    def values(self) -> Iterable[str]: ...  # value names, in order (a mapping's keys do)


@dataclass(frozen=True)
class Tried:
    """One graded attempt of a drill, oldest first in a history: its variant, and whether it passed."""

    variant: Mapping[str, str]
    passed: bool


@dataclass(frozen=True)
class Standing:
    """One axis value's record in a drill's history. `last` is "pass", "fail" or None (never
    graded); `since_pass` counts the drill's attempts after this value's last pass (None: never
    passed)."""

    axis: str
    value: str
    default: bool
    passes: int = 0
    fails: int = 0
    last: str | None = None
    since_pass: int | None = None

    @property
    def label(self) -> str:
        return f"{self.axis}={self.value}"


def _names(axis: AxisLike) -> list[str]:
    return [str(v) for v in axis.values]


def full(axes: Sequence[AxisLike], variant: Mapping[str, str]) -> dict[str, str]:
    """Every axis's value under `variant` (the default where it makes no choice)."""
    return {a.name: variant.get(a.name, a.default) for a in axes}


def combinations(axes: Sequence[AxisLike]) -> list[dict[str, str]]:
    """Every variant of the axes as its non-default choices, the default ({}) first."""
    out = []
    for values in itertools.product(*[_names(a) for a in axes]):
        out.append({a.name: v for a, v in zip(axes, values) if v != a.default})
    return out


def _known(axes: Sequence[AxisLike], variant: Mapping[str, str]) -> bool:
    """A recorded variant still makes sense for the drill's axes as they are now."""
    by_name = {a.name: a for a in axes}
    return all(k in by_name and v in _names(by_name[k]) for k, v in variant.items())


@dataclass
class _Count:
    passes: int = 0
    fails: int = 0
    last: str | None = None
    since: int | None = None


def standings(axes: Sequence[AxisLike], history: Sequence[Tried]) -> list[Standing]:
    """Each axis value's record, axis by axis and value by value in the spec's order. Attempts
    under a variant the drill no longer has (an axis or value removed) are left out."""
    counts = {(a.name, v): _Count() for a in axes for v in _names(a)}
    for tried in history:
        if not _known(axes, tried.variant):
            continue
        for c in counts.values():
            if c.since is not None:
                c.since += 1
        for name, value in full(axes, tried.variant).items():
            c = counts[(name, value)]
            if tried.passed:
                c.passes, c.last, c.since = c.passes + 1, "pass", 0
            elif name in tried.variant or not tried.variant:
                c.fails, c.last = c.fails + 1, "fail"
    return [Standing(a.name, v, v == a.default, c.passes, c.fails, c.last, c.since)
            for a in axes for v in _names(a) for c in [counts[(a.name, v)]]]


def default_passed(history: Sequence[Tried]) -> bool:
    return any(t.passed and not t.variant for t in history)


def _need(s: Standing) -> float:
    """How much a value wants practice: a last fail 3, never passed 2, else 0..1 by how many
    of the drill's attempts ago it was last passed."""
    if s.last == "fail":
        return 3.0
    if s.since_pass is None:
        return 2.0
    return s.since_pass / (s.since_pass + 1)


def choose_variant(axes: Sequence[AxisLike], history: Sequence[Tried], seed: int | str) -> dict[str, str]:
    """The variant to serve next (its non-default choices; {} = the default); see the module's
    rules. The same axes, history and seed give the same answer. The combinations are never
    listed (40 two-valued axes make 2**40): a combination's score is the sum of its values'
    needs, so the best ones are every axis at one of its own best values (grader/spec/combos.py
    draws among them by place, the place each had in the listed order)."""
    if not axes or not default_passed(history):
        return {}
    needs = {(s.axis, s.value): _need(s) for s in standings(axes, history)}
    last_passed = next((dict(t.variant) for t in reversed(history) if t.passed and _known(axes, t.variant)), None)
    names = [_names(a) for a in axes]
    if math.prod(len(n) for n in names) == 1:  # a single combination: nothing else to serve
        return last_passed or {}
    rng = random.Random(f"variant:{seed}")
    best = [[v for v in n if needs[(a.name, v)] >= max(needs[(a.name, w)] for w in n) - 1e-9] for a, n in zip(axes, names)]
    skip = _place(axes, best, last_passed)
    count = math.prod(len(b) for b in best) - (skip is not None)
    if count > 0:
        index = rng.randrange(count)  # what rng.choice drew from the listed best combinations
        return _variant(axes, nth_of_product(index + (skip is not None and index >= skip), best))
    # the one best combination is the one passed last: the next best change one axis by the least
    top = [b[0] for b in best]
    losses = [(needs[(a.name, top[i])] - needs[(a.name, v)], i, pos)
              for i, (a, n) in enumerate(zip(axes, names)) for pos, v in enumerate(n) if v != top[i]]
    least = min(loss for loss, _, _ in losses)
    nearest = [(i, pos) for loss, i, pos in losses if loss <= least + 1e-9]
    order = sorted(nearest, key=lambda ip: [names[j].index(top[j]) if j != ip[0] else ip[1] for j in range(len(axes))])
    i, pos = order[rng.randrange(len(order))]
    return _variant(axes, [names[j][pos] if j == i else top[j] for j in range(len(axes))])


def _place(axes: Sequence[AxisLike], best: Sequence[Sequence[str]], variant: Mapping[str, str] | None) -> int | None:
    """`variant`'s place among the best combinations (product order), None when it is not one of them."""
    if variant is None or any(v == a.default for a in axes for k, v in variant.items() if k == a.name):
        return None  # a recorded choice of a value now the default is no combination's form
    chosen = full(axes, variant)
    if any(chosen[a.name] not in b for a, b in zip(axes, best)):
        return None
    return product_index([list(b).index(chosen[a.name]) for a, b in zip(axes, best)], best)


def _variant(axes: Sequence[AxisLike], values: Sequence[str]) -> dict[str, str]:
    return {a.name: v for a, v in zip(axes, values) if v != a.default}


def values_passed(axes: Sequence[AxisLike], passed: Iterable[Mapping[str, str]]) -> tuple[int, int]:
    """(values passed, values in all) over every axis, defaults included, given the variants
    a drill was passed under (`drill list`'s "variants 2/5")."""
    rows = standings(axes, [Tried(dict(v), True) for v in passed])
    return sum(1 for s in rows if s.passes), len(rows)


def served(spec: Spec, attempts: Iterable[object], seed: int | str) -> Spec:
    """`spec` under the variant a practice sitting serves now (`choose_variant` on the drill's
    attempts, oldest first); the spec itself for a drill without variants or the default."""
    if not spec.variants:
        return spec
    return spec.under(choose_variant(spec.variants, history_of(attempts), f"{seed}:{spec.id}"))


def history_of(attempts: Iterable[object]) -> list[Tried]:
    """A drill's history from the store's attempt records (oldest first), leaving out the
    grader's own failures (`internal`, which say nothing of the person)."""
    out = []
    for a in attempts:
        verdict = getattr(a, "verdict", "")
        if verdict == "internal":
            continue
        out.append(Tried(dict(getattr(a, "variant", {}) or {}), verdict == "pass" and not getattr(a, "revealed", False)))
    return out


def followup_variant(axes: Sequence[AxisLike], passed: Mapping[str, str], history: Sequence[Tried],
                     seed: int | str) -> dict[str, str] | None:
    """A mock's follow-up on a drill just passed under `passed`: the same question with ONE axis
    changed, as an interviewer changes one thing ("now True marks padding"). Among those, the
    values that want practice most (`_need` on the drill's history) are drawn among by the seed.
    None for a drill without variants."""
    if not axes:
        return None
    needs = {(s.axis, s.value): _need(s) for s in standings(axes, history)}
    now = full(axes, passed)
    candidates = []
    for axis in axes:
        for value in _names(axis):
            if value == now[axis.name]:
                continue
            changed = {**now, axis.name: value}
            variant = {a.name: changed[a.name] for a in axes if changed[a.name] != a.default}
            candidates.append(((axis.name, value), variant))
    if not candidates:
        return None
    best = max(needs[key] for key, _ in candidates)
    top = [v for key, v in candidates if needs[key] >= best - 1e-9]
    return random.Random(f"followup:{seed}").choice(top)


def changed_axis(passed: Mapping[str, str], followup: Mapping[str, str]) -> str | None:
    """The axis a follow-up variant changes from the one passed (they differ in one axis)."""
    keys = set(passed) | set(followup)
    return next((k for k in sorted(keys) if passed.get(k) != followup.get(k)), None)
