"""Reference and traps for ragged-to-padded."""
import torch


def _pad(seqs, pad_id):
    B = len(seqs)
    T = max(len(s) for s in seqs)
    ids = torch.full((B, T), pad_id, dtype=torch.int64)  # (B, T)
    mask = torch.zeros(B, T, dtype=torch.int64)  # (B, T)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = torch.tensor(s, dtype=torch.int64)
        mask[i, : len(s)] = 1
    return ids, mask


def pad_batch(seqs, pad_id):
    ids, mask = _pad(seqs, pad_id)
    last = mask.sum(dim=1) - 1  # (B,) index of the final real token
    return ids, mask, last


def last_hidden(h, mask):
    B = h.shape[0]
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


def trap_mask_from_ids(seqs, pad_id):
    ids, _ = _pad(seqs, pad_id)
    mask = (ids != pad_id).long()  # wrong wherever a real token equals pad_id
    return ids, mask, mask.sum(dim=1) - 1


def trap_mask_from_ids_only(seqs, pad_id):
    ids, _ = _pad(seqs, pad_id)
    last = torch.tensor([len(s) - 1 for s in seqs], dtype=torch.int64)  # right
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
