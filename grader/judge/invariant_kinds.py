"""Names and meanings of the built-in invariant kinds (torch-free, for the schema).

The implementations live in grader.judge.invariants. A spec may also name its own
check from its reference file as `py:name`.
"""
from __future__ import annotations

KINDS: dict[str, str] = {
    "nonnegative": "every value is >= 0, checked exactly (no tolerance)",
    "finite": "no NaN or infinity anywhere",
    "sums_to_one": "slices along options.axis sum to 1 (rows where options.where_arg has a kept entry)",
    "zero_where": "output is exactly 0 where the boolean-ish input options.arg is false/0",
    "equals_input": "output equals input options.arg exactly (round trips)",
    "diagonal_ones": "the diagonal of a square output is 1 (a box with itself has IoU 1)",
    "group_zero_mean": "each group of options.group consecutive values has mean 0 (or is all 0)",
    "values_in": "every value lies in [options.low, options.high]",
}
