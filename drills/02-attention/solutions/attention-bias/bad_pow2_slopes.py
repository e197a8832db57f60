# trap: power-of-two-slopes
# The power-of-2 formula used for every head count.
import math

import torch


def sliding_window_keep(T, S, window):
    q = torch.arange(T)[:, None] + (S - T)
    k = torch.arange(S)[None, :]
    return (k <= q) & (q - k < window)


def get_slopes(n):
    def pow2(n):
        start = 2 ** (-2 ** -(math.log2(n) - 3))
        return [start * start**i for i in range(n)]

    if math.log2(n).is_integer():
        return pow2(n)
    p = 2 ** math.floor(math.log2(n))
    return pow2(p) + get_slopes(2 * p)[0::2][: n - p]


def alibi_bias(H, T, S):
    m = torch.tensor([2 ** (-8 * (h + 1) / H) for h in range(H)], dtype=torch.float32)
    q = torch.arange(T)[:, None] + (S - T)
    k = torch.arange(S)[None, :]
    return -m[:, None, None] * (q - k)[None].float()
