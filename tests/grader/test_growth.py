"""Memory judged by growth (issue 22, item 3): the exponents, the comparison and the words (grader.fake.growth)."""
from __future__ import annotations

import pytest

from grader.fake import growth


def test_exponents_read_the_power_of_each_dimension():
    N, M, d = 2000, 1500, 512
    naive = lambda n, m, k: 4 * n * m * k  # noqa: E731 - an (N, M, d) float32 tensor
    base = naive(N, M, d)
    exps = growth.exponents(base, {"N": naive(2 * N, M, d), "M": naive(N, 2 * M, d), "d": naive(N, M, 2 * d)})
    assert exps == {"N": 1.0, "M": 1.0, "d": 1.0}
    assert growth.exponents(100, {"T": 400, "d": 100}) == {"T": 2.0, "d": 0.0}


def test_a_term_independent_of_the_dimension_pulls_the_exponent_below_one_power():
    # the reference: two (N, M) matrices plus an (N, d) one; doubling d adds little
    peak = lambda n, m, k: 8 * n * m + 4 * n * k  # noqa: E731
    exps = growth.exponents(peak(2000, 1500, 512), {"d": peak(2000, 1500, 1024)})
    assert 0 < exps["d"] < 0.5 and growth.order(exps["d"]) == 0


def test_a_stacked_square_is_not_a_new_order():
    # sentence-transformers' (N+M)^2 against the reference's N*M: 1.3 in N, still one power
    stacked = lambda n, m: 4 * (n + m) ** 2  # noqa: E731
    ref = lambda n, m: 8 * n * m  # noqa: E731
    mine = growth.exponents(stacked(2000, 1500), {"N": stacked(4000, 1500), "M": stacked(2000, 3000)})
    theirs = growth.exponents(ref(2000, 1500), {"N": ref(4000, 1500), "M": ref(2000, 3000)})
    assert 1.2 < mine["N"] < 1.4
    assert growth.faster(mine, theirs) == []
    assert growth.same_order(mine, theirs)


@pytest.mark.parametrize("mine, theirs, expected", [
    ({"N": 1.0, "K": 1.0}, {"N": 1.0, "K": 0.0}, ["K"]),  # one-hot counts against bincount
    ({"d": 0.55}, {"d": 0.45}, []),  # rounds apart, but too close to call
    ({"d": 1.5}, {"d": 1.0}, ["d"]),
    ({"d": 1.0}, {"d": 1.4}, []),  # slower is never a failure
    ({"T": 2.0, "x": 1.0}, {"T": 2.0}, []),  # a dimension the reference was not measured in is not compared
])
def test_faster_needs_a_higher_order_and_half_a_power(mine, theirs, expected):
    assert growth.faster(mine, theirs) == expected


@pytest.mark.parametrize("exps, text", [
    ({"N": 1.0, "M": 1.02, "d": 0.96}, "N*M*d"),
    ({"N": 1.0, "M": 0.98, "d": 0.07}, "N*M"),
    ({"B": 1.0, "H": 1.0, "T": 2.0, "dh": 0.0}, "B*H*T^2"),
    ({"H": 1.0, "W": 1.0, "s": -2.0}, "H*W/s^2"),
    ({"k": -1.0, "s": -1.0}, "1/(k*s)"),
    ({"N": 0.1, "K": 0.0}, "a constant"),
    ({}, "a constant"),
])
def test_monomial_text(exps, text):
    assert growth.monomial(exps) == text


def test_an_empty_peak_grows_only_when_it_stops_being_empty():
    assert growth.exponents(0, {"N": 0, "d": 64}) == {"N": 0.0, "d": 1.0}


def test_the_floor_is_the_larger_of_the_reference_and_the_inputs():
    # last_hidden at B=8, T=4096, d=1024: h itself is B*T*d floats, the reference's peak only B*T longs
    B, T, d = 8, 4096, 1024
    h = lambda b, t, k: 4 * b * t * k + 8 * b * t  # noqa: E731 - h and the mask
    ref = lambda b, t, k: 8 * b * t  # noqa: E731
    onehot = lambda b, t, k: 4 * b * t * k  # noqa: E731 - (h * onehot): one (B, T, d) product
    sizes = {"B": (2 * B, T, d), "T": (B, 2 * T, d), "d": (B, T, 2 * d)}
    mine = growth.exponents(onehot(B, T, d), {k: onehot(*v) for k, v in sizes.items()})
    reference = growth.exponents(ref(B, T, d), {k: ref(*v) for k, v in sizes.items()})
    base, grown = growth.floor(ref(B, T, d), {k: ref(*v) for k, v in sizes.items()},
                               h(B, T, d), {k: h(*v) for k, v in sizes.items()})
    assert base == h(B, T, d) and grown["d"] == h(B, T, 2 * d)
    assert growth.faster(mine, reference) == ["d"]  # faster than the reference alone ...
    assert growth.faster(mine, growth.exponents(base, grown)) == []  # ... but not than its input


def test_the_floor_keeps_an_intermediate_faster_than_both():
    # pairwise-sqdist: (N, M, d) against the reference's N*M and the inputs' (N + M)*d
    N, M, d = 2000, 1500, 512
    sizes = {"N": (2 * N, M, d), "M": (N, 2 * M, d), "d": (N, M, 2 * d)}
    naive = lambda n, m, k: 4 * n * m * k  # noqa: E731
    ref = lambda n, m, k: 8 * n * m  # noqa: E731
    inputs = lambda n, m, k: 4 * (n + m) * k  # noqa: E731
    mine = growth.exponents(naive(N, M, d), {k: naive(*v) for k, v in sizes.items()})
    base, grown = growth.floor(ref(N, M, d), {k: ref(*v) for k, v in sizes.items()},
                               inputs(N, M, d), {k: inputs(*v) for k, v in sizes.items()})
    assert growth.faster(mine, growth.exponents(base, grown)) == ["d"]
