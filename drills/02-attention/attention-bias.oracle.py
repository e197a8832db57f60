"""The oracles for attention-bias: the contract's formulas as plain loops.

Kept apart from the reference so that it is an independent check; every public function
here is an oracle the spec can name (drills/README.md). The slopes follow get_slopes in
ofirpress/attention_with_linear_biases (fairseq/models/transformer.py), written out again here."""
from __future__ import annotations

import math

import torch


def _get_slopes(n: int) -> list[float]:
    def get_slopes_power_of_2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        ratio = start
        return [start * ratio**i for i in range(n)]

    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    closest_power_of_2 = 2 ** math.floor(math.log2(n))
    return get_slopes_power_of_2(closest_power_of_2) + _get_slopes(2 * closest_power_of_2)[0::2][: n - closest_power_of_2]


def window_loop(T: int, S: int, window: int, *, convention: str = "hf") -> torch.Tensor:
    """keep[i, j]: key j is causal for the query at position i + S - T and among its `window` latest keys
    (hf: Hugging Face's kv_idx > q_idx - sliding_window) or within window of it (flash: flash-attn's
    window_size=(window, 0), keys q - window .. q)."""
    keep = torch.zeros(T, S, dtype=torch.bool)
    for i in range(T):
        q = i + S - T
        for j in range(S):
            if convention == "flash":
                keep[i, j] = q - window <= j <= q
            else:
                keep[i, j] = q - window < j <= q
    return keep


def alibi_loop(H: int, T: int, S: int) -> torch.Tensor:
    """bias[h, i, j] = -m_h * ((i + S - T) - j), the slopes in Python floats, rounded to float32 at the end."""
    slopes = _get_slopes(H)
    out = torch.zeros(H, T, S, dtype=torch.float64)
    for h in range(H):
        for i in range(T):
            for j in range(S):
                out[h, i, j] = -slopes[h] * ((i + S - T) - j)
    return out.to(torch.float32)
