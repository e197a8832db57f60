"""How a peak grows with each dimension, and the words for it.

The scale check (grader.fake.scale) measures a function's peak live bytes at the
drill's `scale:` sizes and again with each named dimension doubled, one at a
time (grader.fake.checks). A dimension's growth exponent is log2 of the ratio
of the two peaks: 1 for a peak linear in it, 2 for a square, 0 for a peak that
does not depend on it. Terms that do not depend on the dimension (another
dimension's tensors, the inputs a view keeps counted) pull the exponent below
the leading term's; rounding to the nearest integer reads the leading term at
production sizes, and a solution is told it grows faster only when its
exponent is both higher once rounded and at least FASTER above the
reference's, so that a mix of terms (the (N+M)^2 of a stacked distance matrix
is 1.3 in N at N=2000, M=1500) never reads as a new order.

What a solution is compared with is the larger, at each size, of the reference's
peak and its inputs' own bytes (`floor`): code that holds as much as it was given
(an (B, T, d) product with the (B, T, d) input it reads) grows no faster than
its inputs, whatever the reference's cleverer peak, so that is never `memory`
(at most a note); growing faster than both is.

Torch-free: the grader, the tests and the words share it.
"""
from __future__ import annotations

import math

FASTER = 0.5  # how far above the reference's exponent a dimension's must be to count as faster growth


def exponents(peak: int, grown: dict[str, int]) -> dict[str, float]:
    """Each dimension's growth exponent, log2(peak with it doubled / peak). A peak of 0 grows as
    nothing when it stays 0, and as a first power of the dimension when it does not."""
    out = {}
    for dim, bigger in grown.items():
        if peak <= 0:
            out[dim] = 0.0 if bigger <= 0 else 1.0
        elif bigger <= 0:
            out[dim] = 0.0
        else:
            out[dim] = round(math.log2(bigger / peak), 2)
    return out


def floor(ref_peak: int, ref_grown: dict[str, int], input_bytes: int,
          input_grown: dict[str, int]) -> tuple[int, dict[str, int]]:
    """The peak a solution is compared with, at the scale sizes and with each dimension doubled: the
    larger of the reference's peak and the inputs' own bytes there (inputs not measured with a dimension
    doubled count as they are at the scale sizes)."""
    grown = {d: max(int(p), int(input_grown.get(d, input_bytes))) for d, p in ref_grown.items()}
    return max(int(ref_peak), int(input_bytes)), grown


def order(exponent: float) -> int:
    """The integer power a measured exponent reads as (half-way rounds up)."""
    return math.floor(exponent + 0.5)


def faster(solution: dict[str, float], reference: dict[str, float]) -> list[str]:
    """The dimensions the solution's peak grows in clearly faster than the reference's."""
    out = []
    for dim, e in solution.items():
        ref = reference.get(dim)
        if ref is not None and order(e) > order(ref) and e - ref >= FASTER:
            out.append(dim)
    return out


def same_order(a: dict[str, float], b: dict[str, float]) -> bool:
    """Both grow as the same monomial (every dimension measured for both, with the same integer power)."""
    return set(a) == set(b) and all(order(a[d]) == order(b[d]) for d in a)


def monomial(exps: dict[str, float]) -> str:
    """'N*M*d', 'B*H*T^2', 'H*W/s^2' from the exponents (in their order); 'a constant' when all are 0."""
    up = [_power(d, order(e)) for d, e in exps.items() if order(e) > 0]
    down = [_power(d, -order(e)) for d, e in exps.items() if order(e) < 0]
    text = "*".join(up) or ("1" if down else "")
    if down:
        text += "/" + ("*".join(down) if len(down) == 1 else "(" + "*".join(down) + ")")
    return text or "a constant"


def _power(dim: str, n: int) -> str:
    return dim if n == 1 else f"{dim}^{n}"
