"""Reference and traps for ragged-to-padded.

Every function takes the variant keywords (drills/README.md, "Variants"): `side`, right padding
(the contract; training) or left padding (batched generation, Hugging Face's padding_side="left"),
and `mask_kw`, what the mask holds: keep (the contract: 1 on real tokens) or pad (1 on padding, as
fairseq's encoder_padding_mask = src_tokens.eq(padding_idx))."""
import torch


def _pad(seqs, pad_id, side="right", mask_kw="keep"):
    """ids and the mask, 1 on real tokens (mask_kw keep) or 1 on padding (pad)."""
    B = len(seqs)
    T = max(len(s) for s in seqs)
    ids = torch.full((B, T), pad_id, dtype=torch.int64)  # (B, T)
    mask = torch.zeros(B, T, dtype=torch.int64)  # (B, T)
    for i, s in enumerate(seqs):
        at = slice(0, len(s)) if side == "right" else slice(T - len(s), T)
        ids[i, at] = torch.tensor(s, dtype=torch.int64)
        mask[i, at] = 1
    return ids, mask if mask_kw == "keep" else 1 - mask


def _real(mask, mask_kw="keep"):
    """(B, T) bool, True on real tokens, whichever way the mask points."""
    return mask.bool() if mask_kw == "keep" else ~mask.bool()


def pad_batch(seqs, pad_id, *, side="right", mask_kw="keep"):
    ids, mask = _pad(seqs, pad_id, side, mask_kw)
    if side == "left":  # every row ends at the last column
        return ids, mask, torch.full((len(seqs),), ids.shape[1] - 1, dtype=torch.int64)
    last = _real(mask, mask_kw).sum(dim=1) - 1  # (B,) index of the final real token
    return ids, mask, last


def last_hidden(h, mask, *, side="right", mask_kw="keep"):
    B = h.shape[0]
    if side == "left":
        return h[:, -1]  # left padding: every row's final real token is the last position
    last = _real(mask, mask_kw).long().sum(dim=1) - 1  # (B,) right padding: count - 1
    return h[torch.arange(B), last]  # (B, d)


def make_seqs(ctx, shape, dtype, vocab=30, pad_at_end=True):
    """B token lists: lengths in [1, T] with one of exactly T and (B > 1) one of
    length 1; pad_id appears as a real token, and (pad_at_end) where possible as
    the final token of a short sequence. Without pad_at_end it appears only
    inside sequences, never as a final token."""
    pad_at_end = bool(ctx.params.get("pad_at_end", pad_at_end))
    pad_id = int(ctx.params.get("pad_id", 0))
    B, T = ctx.sizes["B"], ctx.sizes["T"]
    lens = [ctx.rng.randint(1, T) for _ in range(B)]
    order = list(range(B))
    ctx.rng.shuffle(order)
    lens[order[0]] = T
    if B > 1:
        lens[order[1]] = 1
    others = [t for t in range(vocab + 1) if t != pad_id]
    seqs = [[ctx.rng.choice(others) for _ in range(n)] for n in lens]
    # a real token equal to pad_id inside the full sequence ...
    seqs[order[0]][ctx.rng.randrange(T - 1) if T > 1 else 0] = pad_id
    # ... and as the last token of a shorter one, which fools `ids != pad_id`
    short = [i for i in order[1:] if lens[i] < T]
    if short and pad_at_end:
        seqs[short[-1]][-1] = pad_id
    return seqs


def trap_last_is_count(seqs, pad_id, *, mask_kw="keep"):
    ids, mask = _pad(seqs, pad_id, mask_kw=mask_kw)
    return ids, mask, _real(mask, mask_kw).sum(dim=1)  # one past the final real token


def trap_mask_from_ids(seqs, pad_id, *, side="right", mask_kw="keep"):
    ids, _ = _pad(seqs, pad_id, side)
    real = ids != pad_id  # wrong wherever a real token equals pad_id
    mask = real.long() if mask_kw == "keep" else (~real).long()
    if side == "left":
        return ids, mask, torch.full((len(seqs),), ids.shape[1] - 1, dtype=torch.int64)
    return ids, mask, real.long().sum(dim=1) - 1


def trap_mask_from_ids_only(seqs, pad_id, *, side="right", mask_kw="keep"):
    ids, mask = _pad(seqs, pad_id, side)
    last = pad_batch(seqs, pad_id, side=side)[2]  # right
    real = ids != pad_id  # but the mask hides real pad_id tokens
    return ids, real.long() if mask_kw == "keep" else (~real).long(), last


def trap_left_padded(seqs, pad_id, *, mask_kw="keep"):
    B = len(seqs)
    T = max(len(s) for s in seqs)
    ids = torch.full((B, T), pad_id, dtype=torch.int64)
    mask = torch.zeros(B, T, dtype=torch.int64)
    for i, s in enumerate(seqs):
        ids[i, T - len(s):] = torch.tensor(s, dtype=torch.int64)
        mask[i, T - len(s):] = 1
    return ids, mask if mask_kw == "keep" else 1 - mask, torch.full((B,), T - 1, dtype=torch.int64)


def trap_last_position(h, mask):
    return h[:, -1]  # a pad vector for every short row


def trap_count_as_index(h, mask, *, mask_kw="keep"):
    B = h.shape[0]
    last = _real(mask, mask_kw).long().sum(dim=1)  # one past the end: a pad, or out of range for a full row
    return h[torch.arange(B), last]


def trap_right_padded(seqs, pad_id, *, mask_kw="keep"):
    """The contract's right padding where the variant asks for left padding."""
    return pad_batch(seqs, pad_id, mask_kw=mask_kw)


def trap_count_last_left(seqs, pad_id, *, mask_kw="keep"):
    """Left padding done right, then last = count - 1, the right-padding rule: on a left-padded
    batch a short row's count - 1 points into its pads (or at an early token)."""
    ids, mask, _ = pad_batch(seqs, pad_id, side="left", mask_kw=mask_kw)
    return ids, mask, _real(mask, mask_kw).sum(dim=1) - 1


def trap_right_padded_last(h, mask, *, mask_kw="keep"):
    """The right-padding rule, count - 1, on a left-padded batch."""
    return last_hidden(h, mask, mask_kw=mask_kw)


def trap_keep_mask(seqs, pad_id, *, side="right"):
    """The contract's mask, 1 on real tokens, where the variant asks for 1 on padding."""
    return pad_batch(seqs, pad_id, side=side)


def trap_keep_mask_last(h, mask, *, side="right"):
    """Counting the mask's 1s as real tokens where they mark padding."""
    return last_hidden(h, mask, side=side)
