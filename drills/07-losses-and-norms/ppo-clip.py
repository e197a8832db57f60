"""Reference and traps for ppo-clip: PPO's clipped surrogate loss over the response tokens.

Every function takes the variant keyword (drills/README.md, "Variants"): `agg` says how the
per-token losses become one number: token-mean (the contract, verl's default), the mean over every
mask token of the batch, or seq-mean-token-mean, each sequence's token mean, then the mean over the
sequences that have a token (verl's agg_loss). The defaults are the contract."""
import math

import torch


def _per_token(logp, old_logp, adv, keep, lo, hi):
    """(B, T) float64 per-token losses max(-A r, -A clip(r, lo, hi)), 0 at the masked positions
    (their log-ratio is replaced by 0 before exp, so nothing there can overflow)."""
    d = torch.where(keep, logp.double() - old_logp.double(), torch.zeros((), dtype=torch.float64))
    r = torch.exp(d)
    a = adv.double()
    per = torch.maximum(-a * r, -a * r.clamp(lo, hi))
    return torch.where(keep, per, torch.zeros((), dtype=torch.float64))


def _agg(per, keep, agg):
    """token-mean: every mask token of the batch weighs the same; seq-mean-token-mean: each row's token
    mean, averaged over the rows that have a token."""
    if agg == "seq-mean-token-mean":
        count = keep.sum(1)  # (B,)
        seq = per.sum(1) / count.clamp_min(1)  # (B,) each sequence's token mean
        return seq.sum() / (count > 0).sum().clamp_min(1)
    return per.sum() / keep.sum().clamp_min(1)


def ppo_clip_loss(logp, old_logp, adv, mask, eps_low: float = 0.2, eps_high: float = 0.2, *, agg="token-mean"):
    keep = mask != 0  # (B, T) bool, whatever the mask's dtype
    per = _per_token(logp, old_logp, adv, keep, 1 - eps_low, 1 + eps_high)
    return _agg(per, keep, agg).to(logp.dtype)  # ()


def make_inputs(ctx, *, agg="token-mean"):
    """All four tensors at once. Each row gets a response span (prompt before it, padding after): one
    row a single token, one row all T (with B >= 2); empty_row: true empties row 0 (B >= 2). On the
    response tokens the ratio r is drawn in [0.3, 2.5] and moved 0.03 away from each clip bound (so
    rounding never changes which side of a bound a ratio lies on); old_logp is in [-3, -1], logp =
    old_logp + log r; advantages have both signs, |A| in [0.2, 2]. The first response tokens are
    planted with ratios just inside the wider bound and outside both (0.5 * (lo + 1 - eps_high), and
    so on), so that swapped eps and each branch show at every size. On the masked positions logp
    differs from old_logp by masked_gap - 1 to masked_gap (default 8; 12 overflows exp in fp16), either
    sign, the first such position positive."""
    B, T = ctx.sizes["B"], ctx.sizes["T"]
    p = ctx.params
    eps_low, eps_high = float(p.get("eps_low", 0.2)), float(p.get("eps_high", 0.2))
    gap = float(p.get("masked_gap", 8.0))
    lo, hi = 1 - eps_low, 1 + eps_high
    keep = torch.zeros(B, T, dtype=torch.bool)
    lengths = [ctx.rng.randint(1, T) for _ in range(B)]
    lengths[0] = T
    if B >= 2:
        lengths[1] = 1
    for b, n in enumerate(lengths):
        start = ctx.rng.randint(0, T - n)
        keep[b, start:start + n] = True
    if p.get("empty_row") and B >= 2:
        keep[0] = False
    r = [ctx.rng.uniform(0.3, 2.5) for _ in range(B * T)]
    for i, v in enumerate(r):
        for bound in (lo, hi):
            if abs(v - bound) < 0.03:
                v = bound + (0.03 if v >= bound else -0.03)
        r[i] = v
    a = [ctx.rng.choice((-1.0, 1.0)) * ctx.rng.uniform(0.2, 2.0) for _ in range(B * T)]
    # planted on the first response tokens: inside one bound only under swapped eps, and both branches
    swap_lo, swap_hi = 1 - eps_high, 1 + eps_low
    if eps_high == eps_low:  # nothing to swap: the midpoints would sit on a bound, where the gradient has a kink
        between = [(hi - 0.05, -1.0), (lo + 0.05, 1.0)]
    else:
        between = [(0.5 * (lo + swap_lo) if eps_high > eps_low else 0.5 * (hi + swap_hi), -1.0),
                   (0.5 * (hi + swap_hi) if eps_high > eps_low else 0.5 * (lo + swap_lo), 1.0)]
    plants = [*between, (2.0, -1.0), (0.5, 1.0), (1.9, 1.0), (0.4, -1.0)]
    real = keep.reshape(-1).nonzero().reshape(-1).tolist()
    for (ratio, sign), pos in zip(plants, real):
        r[pos] = ratio
        a[pos] = sign * ctx.rng.uniform(0.5, 2.0)
    old = [-ctx.rng.uniform(1.0, 3.0) for _ in range(B * T)]
    flat_keep = keep.reshape(-1).tolist()
    # off the mask: a log-ratio of size in [gap - 1, gap], either sign, the first one positive
    off = [ctx.rng.choice((-1.0, 1.0)) * ctx.rng.uniform(max(gap - 1.0, 0.0), gap) for _ in range(B * T)]
    masked = [i for i, k in enumerate(flat_keep) if not k]
    if masked:
        off[masked[0]] = abs(off[masked[0]])
    new = [o + (math.log(v) if k else g) for o, v, k, g in zip(old, r, flat_keep, off)]
    dt = ctx.dtype
    return {
        "logp": torch.tensor(new, dtype=torch.float32).reshape(B, T).to(dt),
        "old_logp": torch.tensor(old, dtype=torch.float32).reshape(B, T).to(dt),
        "adv": torch.tensor(a, dtype=torch.float32).reshape(B, T).to(dt),
        "mask": keep.to(ctx.mask_dtype),
        "eps_low": eps_low,
        "eps_high": eps_high,
    }


def trap_optimistic_min(logp, old_logp, adv, mask, eps_low: float = 0.2, eps_high: float = 0.2, *,
                        agg="token-mean"):
    """min of the two losses (the max of the two objectives): the optimistic bound, clipping nothing
    that would be pessimistic."""
    keep = mask != 0
    d = torch.where(keep, logp.double() - old_logp.double(), torch.zeros((), dtype=torch.float64))
    r, a = torch.exp(d), adv.double()
    per = torch.minimum(-a * r, -a * r.clamp(1 - eps_low, 1 + eps_high))
    per = torch.where(keep, per, torch.zeros((), dtype=torch.float64))
    return _agg(per, keep, agg).to(logp.dtype)


def trap_clip_only(logp, old_logp, adv, mask, eps_low: float = 0.2, eps_high: float = 0.2, *, agg="token-mean"):
    """-A * clip(r) alone, without the max against the unclipped term."""
    keep = mask != 0
    d = torch.where(keep, logp.double() - old_logp.double(), torch.zeros((), dtype=torch.float64))
    per = -adv.double() * torch.exp(d).clamp(1 - eps_low, 1 + eps_high)
    per = torch.where(keep, per, torch.zeros((), dtype=torch.float64))
    return _agg(per, keep, agg).to(logp.dtype)


def trap_all_positions(logp, old_logp, adv, mask, eps_low: float = 0.2, eps_high: float = 0.2, *,
                       agg="token-mean"):
    """The masked losses (0 off the mask) averaged over all B * T positions (under seq-mean-token-mean:
    each row's sum over T, then the mean over all B rows)."""
    keep = mask != 0
    per = _per_token(logp, old_logp, adv, keep, 1 - eps_low, 1 + eps_high)
    return per.mean().to(logp.dtype)  # the same number under both aggregations: sum / (B * T)


def trap_mask_ignored(logp, old_logp, adv, mask, eps_low: float = 0.2, eps_high: float = 0.2, *,
                      agg="token-mean"):
    """The mask never used: every position's loss, prompt and padding included, in the mean."""
    keep = torch.ones_like(mask, dtype=torch.bool)
    per = _per_token(logp, old_logp, adv, keep, 1 - eps_low, 1 + eps_high)
    return _agg(per, keep, agg).to(logp.dtype)


def trap_eps_swapped(logp, old_logp, adv, mask, eps_low: float = 0.2, eps_high: float = 0.2, *,
                     agg="token-mean"):
    """clip(r, 1 - eps_high, 1 + eps_low): the two clip ranges exchanged."""
    return ppo_clip_loss(logp, old_logp, adv, mask, eps_high, eps_low, agg=agg)


def trap_token_mean(logp, old_logp, adv, mask, eps_low: float = 0.2, eps_high: float = 0.2):
    """The contract's token-mean where the variant averages each sequence's token mean."""
    return ppo_clip_loss(logp, old_logp, adv, mask, eps_low, eps_high)
