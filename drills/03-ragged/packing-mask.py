"""Reference and traps for packing-mask.

packing_mask and its traps take the variant keywords (drills/README.md, "Variants"): `polarity`,
what True means (attend: the pair may attend, SDPA's boolean attn_mask; blocked: it may not,
nn.MultiheadAttention's boolean attn_mask), and `causal` (True: block-diagonal and causal, the
contract; False: block-diagonal only, an encoder's packed batch). The defaults are the contract."""
import torch


def _seg(lengths):
    lengths = torch.as_tensor(lengths, dtype=torch.int64)
    ids = torch.arange(lengths.shape[0], device=lengths.device)  # (n,) one id per segment, on lengths' device
    return torch.repeat_interleave(ids, lengths)  # (T,) 0, 0, 1, 1, 1, 2, ...: segment i repeated lengths[i] times


def segment_ids(lengths):
    return _seg(lengths)


def _as_asked(allowed, polarity):
    """The (T, T) allowed pairs as the variant's polarity writes them."""
    return allowed if polarity == "attend" else ~allowed


def packing_mask(lengths, *, polarity="attend", causal=True):
    seg = _seg(lengths)  # (T,)
    T = seg.shape[0]
    allowed = seg[:, None] == seg[None, :]  # (T, T) True inside one segment
    if causal:
        allowed = allowed & torch.tril(torch.ones(T, T, dtype=torch.bool, device=seg.device))  # key j <= query i
    return _as_asked(allowed, polarity)


def make_lengths(ctx, shape, dtype, style="random"):
    """n positive lengths summing to T (both sizes of the case).

    random: cut points drawn at random; ones: about half of the segments have
    length 1, the first one included, and the rest share what is left.
    """
    style = str(ctx.params.get("style", style))
    n, T = ctx.sizes["n"], ctx.sizes["T"]
    if n > T:
        raise ValueError("make_lengths needs T >= n")
    if style == "ones" and n >= 2:
        k = max(1, n // 2)  # segments of length 1, the first among them
        ones = {0, *ctx.rng.sample(range(1, n), k - 1)}
        cuts = sorted(ctx.rng.sample(range(1, T - k), n - k - 1))
        big = iter(b - a for a, b in zip([0] + cuts, cuts + [T - k]))
        lens = [1 if i in ones else next(big) for i in range(n)]
    else:
        cuts = sorted(ctx.rng.sample(range(1, T), n - 1))
        lens = [b - a for a, b in zip([0] + cuts, cuts + [T])]
    assert len(lens) == n and sum(lens) == T and min(lens) >= 1, (lens, n, T)
    return torch.tensor(lens, dtype=torch.int64)


def trap_ids_from_one(lengths):
    return _seg(lengths) + 1


def trap_bucketize_left(lengths):
    lengths = torch.as_tensor(lengths, dtype=torch.int64)
    ends = torch.cumsum(lengths, 0)  # (n,)
    return torch.bucketize(torch.arange(int(ends[-1])), ends)  # right=False: the first token of a segment lands one too low


def trap_plain_causal(lengths, *, polarity="attend"):
    T = int(torch.as_tensor(lengths).sum())
    return _as_asked(torch.tril(torch.ones(T, T, dtype=torch.bool)), polarity)


def trap_no_causal(lengths, *, polarity="attend"):
    seg = _seg(lengths)
    return _as_asked(seg[:, None] == seg[None, :], polarity)


def trap_upper_triangle(lengths, *, polarity="attend"):
    seg = _seg(lengths)
    T = seg.shape[0]
    return _as_asked((seg[:, None] == seg[None, :]) & torch.triu(torch.ones(T, T, dtype=torch.bool)), polarity)


def trap_attend_polarity(lengths, *, causal=True):
    """True on the pairs that may attend, where the variant asks for True on the blocked ones."""
    return packing_mask(lengths, causal=causal)


def trap_block_causal(lengths, *, polarity="attend"):
    """The contract's causal part where the variant asks for attention both ways inside a document."""
    return packing_mask(lengths, polarity=polarity)
