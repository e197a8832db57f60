"""Named dimensions: their expressions, distinct-size assignment and shape explanations.

Sizes are drawn so that every named dimension of a case has its own size
(unless the case ties two together, as T == S), which lets a wrong shape be
read back in dimension names: "expected (B, H, T, S) = (2, 3, 5, 7), got
(2, 5, 3, 7) = (B, T, H, S): axes 1 and 2 are swapped". Torch-free.
"""
from __future__ import annotations

import ast
import random
import re
from itertools import combinations
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the spec parser imports this module for its expressions
    from grader.spec.records import CaseSpec, DimRule


# ------------------------------------------------- dimension expressions
# "H * dh", "t + 1": names, integers, + - * // and parentheses. The parser checks them
# (check_expr, expr_names); case generation and the scale check evaluate them.

MAX_EXPR = 200
_EXPR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def expr_names(expr: str) -> list[str]:
    return _EXPR_NAME.findall(expr)


def check_expr(expr: str) -> str | None:
    """Return a problem with a dimension expression, or None. Allowed: names, ints, + - * // ( )."""
    if len(expr) > MAX_EXPR:
        return f"an expression is at most {MAX_EXPR} characters"
    try:
        tree = ast.parse(expr, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return f"cannot parse expression {expr!r}"
    for node in ast.walk(tree):
        if isinstance(node, (ast.Expression, ast.BinOp, ast.Name, ast.Load, ast.Add, ast.Sub, ast.Mult, ast.FloorDiv,
                             ast.UnaryOp, ast.USub)):
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            continue
        return f"expression {expr!r} may only use dimension names, integers, + - * //"
    return None


def eval_expr(expr: str | int, sizes: dict[str, int]) -> int:
    """Evaluate a dimension expression ("H * dh", "t + 1", 3) against sizes."""
    if isinstance(expr, int):
        return expr
    if expr in sizes:
        return sizes[expr]
    tree = ast.parse(expr, mode="eval")

    def ev(node: ast.AST) -> int:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant):
            value: Any = node.value  # an int: check_expr admits no other constant
            return int(value)
        if isinstance(node, ast.Name):
            return sizes[node.id]
        if isinstance(node, ast.UnaryOp):
            return -ev(node.operand)
        if isinstance(node, ast.BinOp):
            a, b = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Add):
                return a + b
            if isinstance(node.op, ast.Sub):
                return a - b
            if isinstance(node.op, ast.Mult):
                return a * b
            if isinstance(node.op, ast.FloorDiv):
                return a // b
        raise ValueError(f"bad expression {expr!r}")

    return ev(tree)


# ---------------------------------------------------------- distinct sizes


class DimError(ValueError):
    pass


def _bounds(rule: DimRule) -> tuple[int, int]:
    """A ranged (not derived) rule's inclusive bounds: the parser sets both."""
    assert rule.low is not None and rule.high is not None
    return rule.low, rule.high


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
            low, high = _bounds(rule)
            choices = [v for v in range(low, high + 1) if v not in used or v <= 1 and low == high]
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
    exempt |= {n for n, r in rules.items() if r.derived and r.expr in rules}  # `Y: X`, an alias (a square grid)
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


def axis_labels(size: int, sizes: dict[str, int], expected_names: tuple[str, ...] = ()) -> list[str]:
    """Every way to name a size in dimensions: the names that have it ('T', or 'T|S' when
    two share it), else the products of two base dimensions ('H*T'); [] when none."""
    names = _names_for(size, sizes)
    if len(names) == 1:
        return names
    if len(names) > 1:
        preferred = [n for n in names if n in expected_names] or names
        return ["|".join(preferred)]
    if size <= 1:
        return []
    base = [n for n, v in sizes.items() if v > 1 and not any(c in n for c in "*+-/ ")]
    return [f"{a}*{b}" for a, b in combinations(base, 2) if sizes[a] * sizes[b] == size]


def name_axis(size: int, sizes: dict[str, int], expected_names: tuple[str, ...] = ()) -> str:
    """The dimension name(s) a size could be: 'T', 'T|S' when two share it, 'H*T', or the number."""
    labels = axis_labels(size, sizes, expected_names)
    return labels[0] if labels else str(size)


def explain_shape(expected_names: tuple[str, ...], expected: tuple[int, ...], got: tuple[int, ...],
                  sizes: dict[str, int], labels: list[str | None] | None = None) -> str:
    """A sentence explaining a wrong shape in dimension names. `labels` gives the name to use
    for each axis of `got` (None: the bare size); by default a size is named only when one
    dimension has it, since a product (B*P) that matches one case can be a coincidence."""
    expected = tuple(int(x) for x in expected)
    got = tuple(int(x) for x in got)
    exp_part = (f"expected {shape_names(expected_names)} = {shape_text(expected)}" if expected_names
                else f"expected {shape_text(expected)}")
    if labels is None:
        labels = [lab if lab and "*" not in lab else None
                  for lab in (name_axis(s, sizes, expected_names) for s in got)]
        labels = [lab if lab is not None and not lab.isdigit() else None for lab in labels]
    got_names = tuple(lab or str(s) for lab, s in zip(labels, got))
    got_part = f"got {shape_text(got)}"
    if any(labels):
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
            now = str(got[i]) if got_names[i] == str(got[i]) else f"{got_names[i]} = {got[i]}"
            return f"axis {i} should be {label(i)} = {expected[i]} but is {now}"
        return "axes " + ", ".join(str(i) for i in diff) + " differ"
    if len(got) == len(expected) + 1:
        for i in range(len(got)):
            if got[:i] + got[i + 1:] == expected:
                if got[i] == 1:
                    return f"an extra axis of size 1 at position {i} (a keepdim or unsqueeze that should be squeezed)"
                extra = str(got[i]) if got_names[i] == str(got[i]) else f"{got_names[i]} = {got[i]}"
                return f"an extra axis {extra} at position {i} (an accidental broadcast?)"
        if got[1:] == expected or got[:-1] == expected:
            pass
        return f"one axis too many ({len(got)} instead of {len(expected)})"
    if len(got) + 1 == len(expected):
        for i in range(len(expected)):
            if expected[:i] + expected[i + 1:] == got:
                return f"axis {i} ({label(i)} = {expected[i]}) is missing (squeezed or reduced away?)"
        return f"one axis too few ({len(got)} instead of {len(expected)})"
    if len(got) > len(expected):
        ones = [s for s in got if s == 1]
        if [s for s in got if s != 1] == [s for s in expected if s != 1] and ones:
            return (f"{len(got) - len(expected)} extra axes of size 1 (a keepdim or unsqueeze that should be "
                    f"squeezed)")
        return f"{len(got) - len(expected)} axes too many: an accidental outer broadcast?"
    return f"{len(expected) - len(got)} axes too few"


def confirmed_labels(members: list[tuple[tuple[int, ...], dict[str, int]]]) -> list[str | None]:
    """Axis names that hold on every case of a group (the same function's wrong shapes of
    one rank): for each axis, the dimensions (or products of two) equal to that axis's size
    in every case. Sizes differ from case to case, so a name that fits them all is no
    coincidence; None where nothing does."""
    got0, sizes0 = members[0]
    labels: list[str | None] = []
    for i, size in enumerate(got0):
        names = [n for n, v in sizes0.items() if v == size and v > 1]
        base = [n for n, v in sizes0.items() if v > 1 and not any(c in n for c in "*+-/ ")]
        products = [(a, b) for a, b in combinations(base, 2) if sizes0[a] * sizes0[b] == size]
        names = [n for n in names if all(s.get(n) == g[i] for g, s in members)]
        products = [(a, b) for a, b in products
                    if all(a in s and b in s and s[a] * s[b] == g[i] for g, s in members)]
        if names:
            labels.append("|".join(names))
        elif products:
            labels.append(f"{products[0][0]}*{products[0][1]}")
        else:
            labels.append(None)
    return labels
