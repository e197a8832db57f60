# Python loops over every entry; slopes by the closed form 2^(-8(h+1)/p) for the power p below H, and
# 2^(-8(2h+1)/(2p)) for the extra heads (every other slope of the next power).
import math

import torch


def sliding_window_keep(T, S, window):
    rows = []
    for i in range(T):
        pos = i + S - T
        rows.append([0 <= pos - j < window for j in range(S)])
    return torch.tensor(rows, dtype=torch.bool)


def slopes(H):
    p = 2 ** int(math.floor(math.log2(H)))
    out = [2.0 ** (-8.0 * (h + 1) / p) for h in range(p)]
    out += [2.0 ** (-8.0 * (2 * h + 1) / (2 * p)) for h in range(H - p)]
    return out


def alibi_bias(H, T, S):
    m = slopes(H)
    return torch.tensor([[[-m[h] * ((i + S - T) - j) for j in range(S)] for i in range(T)] for h in range(H)],
                        dtype=torch.float32)
