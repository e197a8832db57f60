"""Combinations of axis values by their place in itertools.product, without listing them.

A pack spec may have 40 two-valued axes: 2**40 combinations. `--variant random`
(grader.spec.variants.draw) and the practice flows' choice (trainer/practice/variants.py)
draw a place and read the combination there, so what they cost grows with the number
of axes, not of combinations; the place is the one the listed combination had, so a
seed draws what it drew when they were listed."""
from __future__ import annotations

from typing import Sequence, TypeVar

T = TypeVar("T")


def product_index(positions: Sequence[int], axes: Sequence[Sequence[object]]) -> int:
    """The place in itertools.product(*axes) of the tuple whose i-th item is axes[i][positions[i]]."""
    index = 0
    for pos, values in zip(positions, axes):
        index = index * len(values) + pos
    return index


def nth_of_product(index: int, axes: Sequence[Sequence[T]]) -> list[T]:
    """The tuple at place `index` of itertools.product(*axes), as a list, without listing the others."""
    out: list[T] = []
    for values in reversed(axes):
        index, pos = divmod(index, len(values))
        out.append(values[pos])
    return out[::-1]
