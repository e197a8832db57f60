"""Reference and traps for masked-mean."""
import torch


def masked_mean(x, mask):
    m = mask[:, :, None].to(x.dtype)  # (B, T, 1), 1 on real tokens
    total = (x * m).sum(dim=1)  # (B, d)
    count = m.sum(dim=1).clamp_min(1.0)  # (B, 1): an empty sample divides by 1, not 0
    return total / count  # (B, d)


def trap_plain_mean(x, mask):
    return x.mean(dim=1)  # divides by T and averages the padding in


def trap_unclamped_count(x, mask):
    m = mask[:, :, None].to(x.dtype)
    return (x * m).sum(dim=1) / m.sum(dim=1)  # 0 / 0 = NaN for an empty sample


def trap_unmasked_sum(x, mask):
    m = mask[:, :, None].to(x.dtype)
    return x.sum(dim=1) / m.sum(dim=1).clamp_min(1.0)  # padding values leak into the total


def trap_batch_count(x, mask):
    m = mask[:, :, None].to(x.dtype)
    return (x * m).sum(dim=1) / m.sum().clamp_min(1.0)  # one count for the whole batch


def trap_zeroed_then_mean(x, mask):
    m = mask[:, :, None].to(x.dtype)
    return (x * m).mean(dim=1)  # padding zeroed, but still divided by T
