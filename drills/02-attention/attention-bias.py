"""Reference and traps for attention-bias: a sliding-window keep mask and ALiBi's bias, from sizes alone.

The queries are the last T of S positions (query i sits at position i + S - T; T <= S), as in decoding
with a KV cache. sliding_window_keep takes the variant keyword `convention` (drills/README.md,
"Variants"): hf, the contract, keeps `window` keys, the query's own included (Hugging Face's
sliding_window); flash keeps window + 1 (flash-attn's window_size[0] = window: keys in [q - window, q]).
No input is a tensor: the outputs are made on the CPU."""
import math

import torch


def _distance(T, S, aligned="bottom-right"):
    """(T, S) int64: query position minus key position; query i at i + S - T (bottom-right) or at i (top-left)."""
    offset = S - T if aligned == "bottom-right" else 0
    q = torch.arange(T)[:, None] + offset
    k = torch.arange(S)[None, :]
    return q - k


def sliding_window_keep(T: int, S: int, window: int, *, convention="hf"):
    d = _distance(T, S)  # 0 on the query's own key, positive for the past
    width = window + 1 if convention == "flash" else window  # flash-attn: [q - window, q]; HF: window keys
    return (d >= 0) & (d < width)


def _slopes_pow2(n):
    start = 2.0 ** (-(2.0 ** -(math.log2(n) - 3)))  # 2^(-8/n)
    return [start * start**i for i in range(n)]


def alibi_slopes(H):
    """ALiBi's get_slopes: the power-of-2 geometric sequence, and for other H the closest smaller power's slopes
    followed by every other slope of the next power, as Press et al.'s reference code does."""
    if math.log2(H).is_integer():
        return _slopes_pow2(H)
    closest = 2 ** math.floor(math.log2(H))
    return _slopes_pow2(closest) + alibi_slopes(2 * closest)[0::2][: H - closest]


def alibi_bias(H: int, T: int, S: int):
    m = torch.tensor(alibi_slopes(H), dtype=torch.float64)  # slopes in float64, rounded once at the end
    return (-m[:, None, None] * _distance(T, S)[None]).to(torch.float32)  # (H, T, S)


# ----------------------------------------------------------------------------- traps


def trap_window_plus_one(T: int, S: int, window: int):
    """flash-attn's window_size[0] read as Hugging Face's sliding_window: window + 1 keys."""
    return sliding_window_keep(T, S, window, convention="flash")


def trap_hf_window(T: int, S: int, window: int):
    """Under convention=flash: Hugging Face's count, window keys, one short."""
    return sliding_window_keep(T, S, window, convention="hf")


def _keep_top_left(T, S, window, convention):
    d = _distance(T, S, "top-left")
    width = window + 1 if convention == "flash" else window
    return (d >= 0) & (d < width)


def trap_window_top_left(T: int, S: int, window: int, *, convention="hf"):
    """Query i taken to sit at position i, not i + S - T: SDPA's is_causal alignment."""
    return _keep_top_left(T, S, window, convention)


def trap_two_sided_window(T: int, S: int, window: int, *, convention="hf"):
    """|q - j| < window: a symmetric (Longformer-style) band that also lets the query read future keys."""
    d = _distance(T, S).abs()
    width = window + 1 if convention == "flash" else window
    return d < width


def trap_power_of_two_slopes(H: int, T: int, S: int):
    """2^(-8(h+1)/H) for every H: right only when H is a power of 2."""
    m = torch.tensor([2.0 ** (-8.0 * (h + 1) / H) for h in range(H)], dtype=torch.float64)
    return (-m[:, None, None] * _distance(T, S)[None]).to(torch.float32)


def trap_key_position_form(H: int, T: int, S: int):
    """m_h * j, the form ALiBi's fairseq code and BLOOM build: a per-query constant away from -m_h (q - j)."""
    m = torch.tensor(alibi_slopes(H), dtype=torch.float64)
    j = torch.arange(S, dtype=torch.float64)
    return (m[:, None, None] * j[None, None, :]).expand(H, T, S).to(torch.float32)


def trap_alibi_top_left(H: int, T: int, S: int):
    """-m_h (i - j): query i taken to sit at position i."""
    m = torch.tensor(alibi_slopes(H), dtype=torch.float64)
    return (-m[:, None, None] * _distance(T, S, "top-left")[None]).to(torch.float32)
