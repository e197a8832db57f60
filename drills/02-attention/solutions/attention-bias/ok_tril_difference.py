# The window as the difference of two shifted triangles; the slopes built with torch.
import math

import torch


def sliding_window_keep(T, S, window):
    ones = torch.ones(T, S, dtype=torch.bool)
    causal = ones.tril(S - T)  # j <= i + S - T
    too_old = ones.tril(S - T - window)  # j <= i + S - T - window
    return causal & ~too_old


def alibi_bias(H, T, S):
    p = 2 ** math.floor(math.log2(H))
    base = 2.0 ** (-8.0 / p)
    m = base ** torch.arange(1, p + 1, dtype=torch.float64)
    if H > p:
        extra = (2.0 ** (-4.0 / p)) ** torch.arange(1, 2 * (H - p), 2, dtype=torch.float64)
        m = torch.cat([m, extra])
    pos_q = torch.arange(S - T, S, dtype=torch.float64)
    pos_k = torch.arange(S, dtype=torch.float64)
    return (m[:, None, None] * (pos_k[None, None, :] - pos_q[None, :, None])).float()
