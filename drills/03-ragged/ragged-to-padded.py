"""Reference and traps for ragged-to-padded.

Every function takes the variant keyword `side` (drills/README.md, "Variants"): right padding
(the contract; training) or left padding (batched generation, Hugging Face's padding_side="left")."""
import torch


def _pad(seqs, pad_id, side="right"):
    B = len(seqs)
    T = max(len(s) for s in seqs)
    ids = torch.full((B, T), pad_id, dtype=torch.int64)  # (B, T)
    mask = torch.zeros(B, T, dtype=torch.int64)  # (B, T)
    for i, s in enumerate(seqs):
        at = slice(0, len(s)) if side == "right" else slice(T - len(s), T)
        ids[i, at] = torch.tensor(s, dtype=torch.int64)
        mask[i, at] = 1
    return ids, mask


def pad_batch(seqs, pad_id, *, side="right"):
    ids, mask = _pad(seqs, pad_id, side)
    if side == "left":  # every row ends at the last column
        return ids, mask, torch.full((len(seqs),), ids.shape[1] - 1, dtype=torch.int64)
    last = mask.sum(dim=1) - 1  # (B,) index of the final real token
    return ids, mask, last


def last_hidden(h, mask, *, side="right"):
    B = h.shape[0]
    if side == "left":
        return h[:, -1]  # left padding: every row's final real token is the last position
    last = mask.long().sum(dim=1) - 1  # (B,) right padding: count - 1
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


def trap_last_is_count(seqs, pad_id):
    ids, mask = _pad(seqs, pad_id)
    return ids, mask, mask.sum(dim=1)  # one past the final real token


def trap_mask_from_ids(seqs, pad_id, *, side="right"):
    ids, _ = _pad(seqs, pad_id, side)
    mask = (ids != pad_id).long()  # wrong wherever a real token equals pad_id
    if side == "left":
        return ids, mask, torch.full((len(seqs),), ids.shape[1] - 1, dtype=torch.int64)
    return ids, mask, mask.sum(dim=1) - 1


def trap_mask_from_ids_only(seqs, pad_id, *, side="right"):
    ids, mask = _pad(seqs, pad_id, side)
    last = pad_batch(seqs, pad_id, side=side)[2]  # right
    return ids, (ids != pad_id).long(), last  # but the mask hides real pad_id tokens


def trap_left_padded(seqs, pad_id):
    B = len(seqs)
    T = max(len(s) for s in seqs)
    ids = torch.full((B, T), pad_id, dtype=torch.int64)
    mask = torch.zeros(B, T, dtype=torch.int64)
    for i, s in enumerate(seqs):
        ids[i, T - len(s):] = torch.tensor(s, dtype=torch.int64)
        mask[i, T - len(s):] = 1
    return ids, mask, torch.full((B,), T - 1, dtype=torch.int64)


def trap_last_position(h, mask):
    return h[:, -1]  # a pad vector for every short row


def trap_count_as_index(h, mask):
    B = h.shape[0]
    last = mask.long().sum(dim=1)  # one past the end: a pad, or out of range for a full row
    return h[torch.arange(B), last]


def trap_right_padded(seqs, pad_id):
    """The contract's right padding where the variant asks for left padding."""
    return pad_batch(seqs, pad_id)


def trap_right_padded_last(h, mask):
    """The right-padding rule, count - 1, on a left-padded batch."""
    return last_hidden(h, mask)
