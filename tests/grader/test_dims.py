from __future__ import annotations

import random

import pytest

from grader.dims import DimError, assign_sizes, explain_shape
from grader.spec import CaseSpec, DimRule

SIZES = {"B": 2, "H": 3, "T": 5, "S": 7}


def test_swapped_axes_named():
    text = explain_shape(("B", "H", "T", "S"), (2, 3, 5, 7), (2, 5, 3, 7), SIZES)
    assert text.startswith("expected (B, H, T, S) = (2, 3, 5, 7), got (2, 5, 3, 7) = (B, T, H, S)")
    assert "axes 1 and 2 are swapped" in text


def test_collision_is_reported():
    sizes = {"B": 2, "H": 3, "T": 5, "S": 5}
    text = explain_shape(("B", "H", "T", "S"), (2, 3, 5, 5), (2, 5, 3, 5), sizes)
    assert "T and S are both 5" in text
    assert "T|S" in text


def test_extra_keepdim_axis():
    text = explain_shape(("B", "d"), (2, 7), (2, 1, 7), {"B": 2, "T": 5, "d": 7})
    assert "extra axis of size 1 at position 1" in text


def test_missing_axis():
    text = explain_shape(("B", "T", "d"), (2, 5, 7), (2, 7), {"B": 2, "T": 5, "d": 7})
    assert "axis 1 (T = 5) is missing" in text


def test_outer_broadcast_extra_axis():
    text = explain_shape(("N",), (6,), (6, 6), {"N": 6})
    assert "extra axis N = 6" in text


def test_product_of_dims_named():
    text = explain_shape(("B", "T", "d"), (2, 5, 12), (2, 5, 3, 4), {"B": 2, "T": 5, "H": 3, "dh": 4, "d": 12})
    assert "(B, T, H, dh)" in text


def test_distinct_sizes_and_derived():
    rules = {"B": DimRule("B", 1, 4), "H": DimRule("H", 2, 4), "dh": DimRule("dh", 2, 6), "d": DimRule("d", expr="H * dh")}
    for seed in range(30):
        sizes = assign_sizes(rules, CaseSpec("c"), random.Random(seed))
        assert sizes["d"] == sizes["H"] * sizes["dh"]
        assert len(set(sizes.values())) == len(sizes)
        assert list(sizes) == ["B", "H", "dh", "d"]


def test_tied_and_fixed_dims():
    rules = {"B": DimRule("B", 2, 5), "T": DimRule("T", 2, 9), "S": DimRule("S", 2, 9)}
    sizes = assign_sizes(rules, CaseSpec("c", dims={"T": "S", "B": 1}), random.Random(0))
    assert sizes["T"] == sizes["S"] and sizes["B"] == 1


def test_impossible_ranges_raise():
    rules = {"A": DimRule("A", 2, 2), "C": DimRule("C", 2, 2)}
    with pytest.raises(DimError, match="distinct size"):
        assign_sizes(rules, CaseSpec("c"), random.Random(0), tries=20)
