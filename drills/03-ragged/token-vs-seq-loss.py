"""Reference and traps for token-vs-seq-loss.

Every function takes the variant keywords (drills/README.md, "Variants"): `shift`, none, the
contract (logits[:, t] scores ids[:, t]), or next, a causal LM's next-token loss as Hugging Face
computes it (logits[:, t] scores ids[:, t + 1]; the loss positions are marked at ids' positions,
so position 0 never is one); and `labels`, where the loss positions are marked: mask, the
contract (loss_mask), or ignore, Hugging Face's labels (-100, cross_entropy's ignore_index, on
every position without loss, and loss_mask only the attention mask)."""
import torch


IGNORE = -100  # F.cross_entropy's default ignore_index, Hugging Face's label for "no loss here"


def _targets(ids, loss_mask, labels):
    """(ids safe to gather, the loss mask): under labels=ignore the -100 labels mark the positions
    without loss, and loss_mask (the attention mask) is not used."""
    if labels == "ignore":
        return ids.clamp_min(0), ids != IGNORE
    return ids, loss_mask


def _shifted(logits, ids, loss_mask, shift):
    if shift == "next":
        return logits[:, :-1], ids[:, 1:], loss_mask[:, 1:]
    return logits, ids, loss_mask


def _per_token(logits, ids):
    logp = torch.log_softmax(logits.float() if logits.dtype == torch.float16 else logits, dim=-1)  # (B, T, V)
    return -logp.gather(-1, ids[..., None]).squeeze(-1)  # (B, T)


def _losses(logits, ids, loss_mask):
    nll = _per_token(logits, ids)  # (B, T)
    m = loss_mask.to(nll.dtype)  # (B, T)
    token_mean = (nll * m).sum() / m.sum()  # (): every loss token weighs the same
    seq_mean = ((nll * m).sum(1) / m.sum(1)).mean()  # (): every sequence weighs the same
    return token_mean, seq_mean


def lm_losses(logits, ids, loss_mask, *, shift="none", labels="mask"):
    ids, loss_mask = _targets(ids, loss_mask, labels)
    logits, ids, loss_mask = _shifted(logits, ids, loss_mask, shift)
    return _losses(logits, ids, loss_mask)


def make_loss_mask(ctx, shape, dtype, style="right", shift=False, labels="mask"):
    """A (B, T) loss mask with at least one loss token per row.

    right: lengths in [1, T], one row full; answer: a prompt part of zeros, then
    the answer, then padding; unequal: row 0 full length, every other row a
    single loss token (very unequal lengths).

    labels="ignore" (Hugging Face's labels): the first token of a row whose
    loss starts at 0 and has more than one loss token becomes a prompt token;
    the ids already built (ctx.args["ids"]) get -100 on every position without
    loss, and the mask returned is the attention mask: 1 from position 0 to the
    row's last loss token, prompt included.
    """
    style = str(ctx.params.get("style", style))
    B, T = shape
    mask = torch.zeros(B, T, dtype=torch.bool)
    if style == "unequal":
        mask[0] = True
        for b in range(1, B):
            mask[b, ctx.rng.randrange(T)] = True
    elif style == "answer":
        for b in range(B):
            start = ctx.rng.randrange(T)
            end = ctx.rng.randint(start + 1, T)
            mask[b, start:end] = True
    else:
        lens = [ctx.rng.randint(1, T) for _ in range(B)]
        lens[ctx.rng.randrange(B)] = T
        if B > 1 and all(n == T for n in lens):
            lens[-1] = max(1, T // 3)
        for b, n in enumerate(lens):
            mask[b, :n] = True
    if shift:  # next-token targets: position 0 is never one, and every row keeps one after it
        mask[:, 0] = False
        for b in range(B):
            if not mask[b].any():
                mask[b, ctx.rng.randrange(1, T)] = True
    if str(labels) == "ignore":
        for b in range(B):
            if bool(mask[b, 0]) and int(mask[b].sum()) > 1:
                mask[b, 0] = False  # a prompt token: attended to, never scored
        ctx.args["ids"] = ctx.args["ids"].masked_fill(~mask, IGNORE)
        last = torch.arange(T).expand(B, T).masked_fill(~mask, -1).amax(1)  # (B,) each row's last loss token
        mask = torch.arange(T)[None, :] <= last[:, None]  # the attention mask: prompt and answer
    return mask.to(dtype)


def trap_swapped(logits, ids, loss_mask, *, shift="none", labels="mask"):
    ids, loss_mask = _targets(ids, loss_mask, labels)
    logits, ids, loss_mask = _shifted(logits, ids, loss_mask, shift)
    token_mean, seq_mean = _losses(logits, ids, loss_mask)
    return seq_mean, token_mean


def trap_all_positions(logits, ids, loss_mask, *, shift="none", labels="mask"):
    ids, loss_mask = _targets(ids, loss_mask, labels)
    logits, ids, loss_mask = _shifted(logits, ids, loss_mask, shift)
    nll = _per_token(logits, ids)
    return nll.mean(), nll.mean(1).mean()  # the mask is never used


def trap_seq_over_T(logits, ids, loss_mask, *, shift="none", labels="mask"):
    ids, loss_mask = _targets(ids, loss_mask, labels)
    logits, ids, loss_mask = _shifted(logits, ids, loss_mask, shift)
    nll = _per_token(logits, ids)
    m = loss_mask.to(nll.dtype)
    return (nll * m).sum() / m.sum(), ((nll * m).sum(1) / nll.shape[1]).mean()


def trap_sum_over_batch(logits, ids, loss_mask, *, shift="none", labels="mask"):
    ids, loss_mask = _targets(ids, loss_mask, labels)
    logits, ids, loss_mask = _shifted(logits, ids, loss_mask, shift)
    nll = _per_token(logits, ids)
    m = loss_mask.to(nll.dtype)
    return (nll * m).sum() / nll.shape[0], ((nll * m).sum(1) / m.sum(1)).mean()


def trap_seq_no_row_count(logits, ids, loss_mask, *, shift="none", labels="mask"):
    ids, loss_mask = _targets(ids, loss_mask, labels)
    logits, ids, loss_mask = _shifted(logits, ids, loss_mask, shift)
    nll = _per_token(logits, ids)
    m = loss_mask.to(nll.dtype)
    return (nll * m).sum() / m.sum(), (nll * m).sum(1).mean()  # per-row sums, never divided


def trap_masked_mean_over_numel(logits, ids, loss_mask, *, shift="none", labels="mask"):
    ids, loss_mask = _targets(ids, loss_mask, labels)
    logits, ids, loss_mask = _shifted(logits, ids, loss_mask, shift)
    nll = _per_token(logits, ids)
    m = loss_mask.to(nll.dtype)
    return (nll * m).mean(), (nll * m).mean(1).mean()  # masked, but divided by B * T and by T


def trap_no_shift(logits, ids, loss_mask, *, labels="mask"):
    """Scoring ids[:, t] with logits[:, t] where the next token is asked for."""
    return lm_losses(logits, ids, loss_mask, labels=labels)


def trap_shift_backwards(logits, ids, loss_mask, *, labels="mask"):
    """logits[:, 1:] against ids[:, :-1]: each position scores the token before it."""
    ids, loss_mask = _targets(ids, loss_mask, labels)
    return _losses(logits[:, 1:], ids[:, :-1], loss_mask[:, 1:])


def trap_attention_as_loss_mask(logits, ids, loss_mask, *, shift="none"):
    """cross_entropy's ignore_index zeroes the -100 positions, but loss_mask (the attention mask)
    still decides the weights and the counts, so prompt tokens count as losses of 0."""
    safe, scored = _targets(ids, loss_mask, "ignore")
    logits, safe, scored = _shifted(logits, safe, scored, shift)
    _, _, m = _shifted(logits, ids, loss_mask, shift)
    nll = _per_token(logits, safe) * scored  # (B, T): 0 where the label is -100
    m = m.to(nll.dtype)
    return (nll * m).sum() / m.sum(), ((nll * m).sum(1) / m.sum(1)).mean()
