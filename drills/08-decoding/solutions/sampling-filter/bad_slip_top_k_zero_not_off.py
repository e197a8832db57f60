# trap: none
# top_k = 0 is read as "keep the top 1": column -1 clamped to 0, the row's maximum alone survives.
import torch


def filter_logits(logits, temperature, top_k, min_p):
    z = logits / temperature[:, None]
    desc = z.sort(dim=-1, descending=True).values
    kth = desc.gather(-1, (top_k - 1).clamp(min=0)[:, None])
    keep = z >= kth
    keep &= z.float() - z.float().amax(-1, keepdim=True) >= min_p.float().log()[:, None]
    return z.masked_fill(~keep, float("-inf"))
