import math

import numpy as np
import torch


def sliding_window_keep(T, S, window):
    d = (np.arange(T)[:, None] + S - T) - np.arange(S)[None, :]
    return torch.from_numpy((d >= 0) & (d < window))


def _slopes(n):
    if (n & (n - 1)) == 0:
        start = 2.0 ** (-8.0 / n)
        return [start ** (h + 1) for h in range(n)]
    p = 1 << (n.bit_length() - 1)
    return _slopes(p) + _slopes(2 * p)[::2][: n - p]


def alibi_bias(H, T, S):
    d = (np.arange(T)[:, None] + S - T) - np.arange(S)[None, :]
    m = np.array(_slopes(H))
    return torch.from_numpy((-m[:, None, None] * d[None]).astype(np.float32))
