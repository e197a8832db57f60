# trap: none
# torch.ones(T, S).tril(...) is float32, so the mask comes back as 1.0 / 0.0 instead of bool.
import math

import torch


def sliding_window_keep(T, S, window):
    ones = torch.ones(T, S)
    return ones.tril(S - T) - ones.tril(S - T - window)


def alibi_bias(H, T, S):
    p = 2 ** math.floor(math.log2(H))
    m = [2.0 ** (-8.0 * (h + 1) / p) for h in range(p)] + [2.0 ** (-4.0 * (2 * h + 1) / p) for h in range(H - p)]
    d = torch.arange(S - T, S)[:, None] - torch.arange(S)[None, :]
    return -torch.tensor(m)[:, None, None] * d
