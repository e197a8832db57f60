"""Reference and traps for masked-mean.

Every function takes the variant keywords (drills/README.md, "Variants"): `mask` says what mask
holds (keep: 1/True on real tokens; pad: 1/True on padding) and `layout` whether x is batch first
(btd) or time first (tbd, with mask still (B, T)). The defaults are the contract."""
import torch


def _prepare(x, mask, mask_kw, layout):
    """x as (B, T, d) and the (B, T, 1) weights, 1 on real tokens, in x's dtype."""
    if layout == "tbd":
        x = x.transpose(0, 1)
    real = mask.bool() if mask_kw == "keep" else ~mask.bool()
    return x, real[:, :, None].to(x.dtype)


def masked_mean(x, mask, *, mask_kw="keep", layout="btd"):
    x, m = _prepare(x, mask, mask_kw, layout)  # (B, T, d), (B, T, 1) with 1 on real tokens
    total = (x * m).sum(dim=1)  # (B, d)
    count = m.sum(dim=1).clamp_min(1.0)  # (B, 1): an empty sample divides by 1, not 0
    return total / count  # (B, d)


def trap_plain_mean(x, mask, *, mask_kw="keep", layout="btd"):
    x, m = _prepare(x, mask, mask_kw, layout)
    return x.mean(dim=1)  # divides by T and averages the padding in


def trap_unclamped_count(x, mask, *, mask_kw="keep", layout="btd"):
    x, m = _prepare(x, mask, mask_kw, layout)
    return (x * m).sum(dim=1) / m.sum(dim=1)  # 0 / 0 = NaN for an empty sample


def trap_unmasked_sum(x, mask, *, mask_kw="keep", layout="btd"):
    x, m = _prepare(x, mask, mask_kw, layout)
    return x.sum(dim=1) / m.sum(dim=1).clamp_min(1.0)  # padding values leak into the total


def trap_batch_count(x, mask, *, mask_kw="keep", layout="btd"):
    x, m = _prepare(x, mask, mask_kw, layout)
    return (x * m).sum(dim=1) / m.sum().clamp_min(1.0)  # one count for the whole batch


def trap_zeroed_then_mean(x, mask, *, mask_kw="keep", layout="btd"):
    x, m = _prepare(x, mask, mask_kw, layout)
    return (x * m).mean(dim=1)  # padding zeroed, but still divided by T


def trap_keep_convention(x, mask, *, layout="btd"):
    """mask read the contract's way (1/True = real) where it marks padding."""
    return masked_mean(x, mask, mask_kw="keep", layout=layout)
