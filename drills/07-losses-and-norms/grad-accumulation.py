"""Reference and traps for grad-accumulation.

N micro-batches of per-token losses, (N, B, T), and their loss mask: entry i is the loss that
micro-batch i back-propagates, so that the N entries sum to the loss of the whole (global) batch.

Every function takes the variant keyword (drills/README.md, "Variants"): `unit` says what weighs
the same in the global batch: every loss token (token, the contract: transformers'
num_items_in_batch) or every sequence with at least one loss token (sequence: verl's
seq-mean-token-mean with the global batch size). The defaults are the contract."""
import torch


def _parts(losses, mask):
    """float64 losses with the masked positions zeroed, and the mask as float64 0/1, both (N, B, T)."""
    m = mask.to(torch.float64)
    return losses.double() * m, m


def micro_batch_losses(losses, mask, *, unit="token"):
    lm, m = _parts(losses, mask)
    if unit == "sequence":
        count = m.sum(2)  # (N, B) loss tokens per sequence
        seq = lm.sum(2) / count.clamp_min(1)  # (N, B) each sequence's token mean (0 without tokens)
        n_seq = (count > 0).sum().clamp_min(1)  # () sequences with a token, over all N micro-batches
        return (seq.sum(1) / n_seq).to(losses.dtype)  # (N,)
    total = m.sum().clamp_min(1)  # () loss tokens over all N micro-batches (all-empty: 0 / 1 = 0)
    return (lm.sum((1, 2)) / total).to(losses.dtype)  # (N,)


def make_mask(ctx, shape, dtype, style="mixed"):
    """A (N, B, T) loss mask. mixed: micro-batch 0 holds one loss token, micro-batch 1 none, the
    others a response span per sequence (start and length drawn, some rows empty, one row full);
    unequal: micro-batch 0 full, every other a single token; full: every position; empty: none."""
    style = str(ctx.params.get("style", style))
    N, B, T = shape
    m = torch.zeros(N, B, T, dtype=torch.bool)
    if style == "full":
        m[:] = True
    elif style == "unequal":
        m[0] = True
        for i in range(1, N):
            m[i, ctx.rng.randrange(B), ctx.rng.randrange(T)] = True
    elif style == "mixed":
        m[0, ctx.rng.randrange(B), ctx.rng.randrange(T)] = True  # one token; micro-batch 1 stays empty
        for i in range(2, N):
            for b in range(B):
                length = ctx.rng.randint(0, T)
                start = ctx.rng.randint(0, T - length)
                m[i, b, start:start + length] = True
            m[i, ctx.rng.randrange(B)] = True  # some tokens in every micro-batch from 2 on, a full row
            if B > 1:
                m[i, ctx.rng.randrange(B)] = False  # and, with two rows or more, an empty one
    return m.to(dtype)


def trap_mean_of_means(losses, mask, *, unit="token"):
    """Each micro-batch's own mean divided by N: the gradient-accumulation bug fixed in transformers
    PR #34191 (a mean of per-micro-batch means)."""
    lm, m = _parts(losses, mask)
    if unit == "sequence":
        count = m.sum(2)
        seq = lm.sum(2) / count.clamp_min(1)
        own = seq.sum(1) / (count > 0).sum(1).clamp_min(1)  # (N,) each micro-batch's sequence mean
    else:
        own = lm.sum((1, 2)) / m.sum((1, 2)).clamp_min(1)  # (N,) each micro-batch's token mean
    return (own / losses.shape[0]).to(losses.dtype)


def trap_micro_mean(losses, mask, *, unit="token"):
    """Each micro-batch's own mean, never divided by N: N times too large on equal micro-batches."""
    return (trap_mean_of_means(losses, mask, unit=unit).double() * losses.shape[0]).to(losses.dtype)


def trap_all_positions(losses, mask, *, unit="token"):
    """The masked sum divided by every position of the global batch, N * B * T (under sequence:
    every sequence's token mean divided by all N * B sequences, empty ones included)."""
    lm, m = _parts(losses, mask)
    N, B, T = losses.shape
    if unit == "sequence":
        seq = lm.sum(2) / m.sum(2).clamp_min(1)
        return (seq.sum(1) / (N * B)).to(losses.dtype)
    return (lm.sum((1, 2)) / (N * B * T)).to(losses.dtype)


def trap_token_unit(losses, mask):
    """The contract's token weighting where the variant weighs every sequence the same."""
    return micro_batch_losses(losses, mask)
