"""Reference and traps for label-shift.

Every function takes the variant keyword (drills/README.md, "Variants"): `reduction` says whether
the per-token cross-entropies are averaged (mean: the contract) or summed (sum). The default is the
contract."""
import torch
import torch.nn.functional as F


def _ce(pred, target, reduction="mean"):
    """Mean (or summed) cross-entropy of pred (B, L, V) against target (B, L), in float32 for fp16 input."""
    work = pred.float() if pred.dtype == torch.float16 else pred
    return F.cross_entropy(work.reshape(-1, work.shape[-1]), target.reshape(-1), reduction=reduction)


def causal_lm_loss(logits, ids, n_prefix: int = 0, *, reduction="mean"):
    T = ids.shape[1]
    if n_prefix == 0:
        # position i predicts token i + 1: drop the last logit and the first id
        return _ce(logits[:, :-1], ids[:, 1:], reduction)
    # text token t is scored by the logit at n_prefix + t - 1 (the last prefix position scores token 0)
    return _ce(logits[:, n_prefix - 1: n_prefix - 1 + T], ids, reduction)


def make_inputs(ctx):
    """Informative logits: each position leans toward the token it predicts, so a misaligned
    pairing shows up as a much larger loss."""
    B, T, V, n = ctx.sizes["B"], ctx.sizes["T"], ctx.sizes["V"], ctx.sizes["n_prefix"]
    ids = torch.randint(0, V, (B, T), generator=ctx.gen)
    logits = torch.randn(B, n + T, V, generator=ctx.gen) * 1.5
    for b in range(B):
        for t in range(T):
            pos = n + t - 1  # the logit that scores token t
            if pos >= 0:
                logits[b, pos, ids[b, t]] += 4.0
    return {"logits": logits.to(ctx.dtype), "ids": ids, "n_prefix": n}


def trap_no_shift(logits, ids, n_prefix: int = 0, *, reduction="mean"):
    T = ids.shape[1]
    return _ce(logits[:, n_prefix: n_prefix + T], ids, reduction)


def trap_prefix_off_by_one(logits, ids, n_prefix: int = 0, *, reduction="mean"):
    # the text-only shift applied after the prefix: the first text token is never scored
    T = ids.shape[1]
    return _ce(logits[:, n_prefix: n_prefix + T - 1], ids[:, 1:], reduction)


def trap_prefix_formula_at_zero(logits, ids, n_prefix: int = 0, *, reduction="mean"):
    # logits[:, n_prefix - 1 : ...] with n_prefix = 0 starts at -1: an empty slice, a NaN mean
    T = ids.shape[1]
    return _ce(logits[:, n_prefix - 1: n_prefix - 1 + T], ids, reduction)


def trap_shift_backwards(logits, ids, n_prefix: int = 0, *, reduction="mean"):
    T = ids.shape[1]
    return _ce(logits[:, n_prefix + 1: n_prefix + T], ids[:, :-1], reduction)


def trap_prefix_ignored(logits, ids, n_prefix: int = 0, *, reduction="mean"):
    # the text-only recipe applied to the whole sequence: the prefix positions stay in the predictions
    return _ce(logits[:, :-1], ids[:, 1:], reduction)  # n_prefix + T - 1 predictions against T - 1 labels: an error


def trap_mean_reduction(logits, ids, n_prefix: int = 0):
    """The contract's mean where the variant asks for the sum."""
    return causal_lm_loss(logits, ids, n_prefix)
