# trap: alibi-top-left
# The window mask places the queries right; the ALiBi distance numbers them from 0, as in a prefill.
import math

import torch


def sliding_window_keep(T, S, window):
    q = torch.arange(S - T, S)[:, None]
    k = torch.arange(S)[None, :]
    return (k <= q) & (q - k < window)


def slopes(H):
    p = 2 ** math.floor(math.log2(H))
    m = [2.0 ** (-8.0 * (h + 1) / p) for h in range(p)]
    return m + [2.0 ** (-8.0 * (2 * h + 1) / (2 * p)) for h in range(H - p)]


def alibi_bias(H, T, S):
    i = torch.arange(T, dtype=torch.float64)[:, None]
    j = torch.arange(S, dtype=torch.float64)[None, :]
    m = torch.tensor(slopes(H), dtype=torch.float64)[:, None, None]
    return (m * (j - i)).to(torch.float32)
