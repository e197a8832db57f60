"""Named dimensions: distinct-size assignment and shape explanations.

Sizes are drawn so that every named dimension of a case has its own size
(unless the case ties two together, as T == S), which lets a wrong shape be
read back in dimension names: "expected (B, H, T, S) = (2, 3, 5, 7), got
(2, 5, 3, 7) = (B, T, H, S): axes 1 and 2 are swapped". Torch-free.
"""
from __future__ import annotations

import random
from itertools import combinations

from grader.spec import CaseSpec, DimRule, eval_expr


class DimError(ValueError):
    pass


def assign_sizes(rules: dict[str, DimRule], case: CaseSpec, rng: random.Random, tries: int = 400) -> dict[str, int]:
    """Sizes for one case: case overrides first, then distinct draws for the rest."""
    fixed: dict[str, int] = {}
    tied: dict[str, str] = {}
    for name, value in case.dims.items():
        if isinstance(value, int):
            fixed[name] = value
        else:
            tied[name] = value
    ranged = [r for r in rules.values() if not r.derived and r.name not in fixed and r.name not in tied]
    derived = [r for r in rules.values() if r.derived and r.name not in fixed and r.name not in tied]
    for _ in range(tries):
        sizes = dict(fixed)
        used = set(v for v in fixed.values() if v > 1)
        ok = True
        for rule in rng.sample(ranged, len(ranged)):
            choices = [v for v in range(rule.low, rule.high + 1) if v not in used or v <= 1 and rule.low == rule.high]
            if not choices:
                ok = False
                break
            v = rng.choice(choices)
            sizes[rule.name] = v
            used.add(v)
        if not ok:
            continue
        for name, other in tied.items():
            if other not in sizes:
                break
            sizes[name] = sizes[other]
        for rule in derived:
            sizes[rule.name] = eval_expr(rule.expr or "0", sizes)
        for name, other in tied.items():
            sizes[name] = sizes[other]
        if _distinct_enough(sizes, rules, fixed, tied):
            return {n: sizes[n] for n in rules if n in sizes}
    raise DimError(
        f"case {case.name!r}: cannot give every dimension a distinct size within its range "
        f"after {tries} tries; widen the ranges under dims"
    )


def _distinct_enough(sizes: dict[str, int], rules: dict[str, DimRule], fixed: dict[str, int], tied: dict[str, str]) -> bool:
    """No two named dimensions share a size, except where the case fixed or tied them."""
    exempt = set(fixed) | set(tied) | set(tied.values())
    seen: dict[int, str] = {}
    for name in rules:
        if name in exempt:
            continue
        v = sizes[name]
        if v in seen:
            return False
        seen[v] = name
    # a fixed size should not collide with a drawn one either (B = 1 never does)
    drawn = {sizes[n] for n in rules if n not in exempt}
    return not any(v in drawn for n, v in fixed.items() if v > 1 and n not in tied.values())


# ------------------------------------------------------------ explaining


def shape_names(names: tuple[str, ...] | list[str]) -> str:
    return "(" + ", ".join(names) + ("," if len(names) == 1 else "") + ")"


def shape_text(shape: tuple[int, ...] | list[int]) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _names_for(size: int, sizes: dict[str, int]) -> list[str]:
    return [n for n, v in sizes.items() if v == size]


def name_axis(size: int, sizes: dict[str, int], expected_names: tuple[str, ...] = ()) -> str:
    """The dimension name(s) a size could be: 'T', 'T|S' when two share it, 'H*T', or the number."""
    names = _names_for(size, sizes)
    if len(names) == 1:
        return names[0]
    if len(names) > 1:
        preferred = [n for n in names if n in expected_names] or names
        return "|".join(preferred)
    base = [n for n, v in sizes.items() if v > 1 and not any(c in n for c in "*+-/ ")]
    for a, b in combinations(base, 2):
        if sizes[a] * sizes[b] == size:
            return f"{a}*{b}"
    if size == 1:
        return "1"
    return str(size)


def explain_shape(expected_names: tuple[str, ...], expected: tuple[int, ...], got: tuple[int, ...], sizes: dict[str, int]) -> str:
    """A sentence explaining a wrong shape in dimension names."""
    expected = tuple(int(x) for x in expected)
    got = tuple(int(x) for x in got)
    exp_part = f"expected {shape_names(expected_names)} = {shape_text(expected)}" if expected_names else f"expected {shape_text(expected)}"
    got_names = tuple(name_axis(s, sizes, expected_names) for s in got)
    got_part = f"got {shape_text(got)}"
    if got_names and any(not n.isdigit() for n in got_names):
        got_part += f" = {shape_names(got_names)}"
    detail = _diagnose(expected_names, expected, got, got_names)
    text = f"{exp_part}, {got_part}"
    if detail:
        text += f": {detail}"
    shared = _shared_sizes(expected_names, sizes)
    if shared:
        text += f" (note: {shared}, so those axes cannot be told apart by size)"
    return text


def _shared_sizes(names: tuple[str, ...], sizes: dict[str, int]) -> str:
    groups: dict[int, list[str]] = {}
    for n in dict.fromkeys(names):
        if n in sizes and sizes[n] > 1:
            groups.setdefault(sizes[n], []).append(n)
    parts = [f"{' and '.join(g)} are both {v}" for v, g in groups.items() if len(g) > 1]
    return "; ".join(parts)


def _diagnose(exp_names: tuple[str, ...], expected: tuple[int, ...], got: tuple[int, ...], got_names: tuple[str, ...]) -> str:
    label = lambda i: exp_names[i] if i < len(exp_names) else f"axis {i}"  # noqa: E731
    if len(got) == len(expected):
        if sorted(got) == sorted(expected):
            diff = [i for i in range(len(got)) if got[i] != expected[i]]
            if len(diff) == 2:
                i, j = diff
                return f"axes {i} and {j} are swapped ({label(i)} and {label(j)})"
            return "the right sizes in the wrong order: a permute or transpose is off"
        diff = [i for i in range(len(got)) if got[i] != expected[i]]
        if len(diff) == 1:
            i = diff[0]
            return f"axis {i} should be {label(i)} = {expected[i]} but is {got_names[i]} = {got[i]}"
        return "axes " + ", ".join(str(i) for i in diff) + " differ"
    if len(got) == len(expected) + 1:
        for i in range(len(got)):
            if got[:i] + got[i + 1:] == expected:
                if got[i] == 1:
                    return f"an extra axis of size 1 at position {i} (a keepdim or unsqueeze that should be squeezed)"
                return f"an extra axis {got_names[i]} = {got[i]} at position {i} (an accidental broadcast?)"
        if got[1:] == expected or got[:-1] == expected:
            pass
        return f"one axis too many ({len(got)} instead of {len(expected)})"
    if len(got) + 1 == len(expected):
        for i in range(len(expected)):
            if expected[:i] + expected[i + 1:] == got:
                return f"axis {i} ({label(i)} = {expected[i]}) is missing (squeezed or reduced away?)"
        return f"one axis too few ({len(got)} instead of {len(expected)})"
    if len(got) > len(expected):
        return f"{len(got) - len(expected)} axes too many: an accidental outer broadcast?"
    return f"{len(expected) - len(got)} axes too few"
