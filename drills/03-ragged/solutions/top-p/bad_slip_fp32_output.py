# trap: none
# Filters in float32 for an accurate cumsum and returns float32 for fp16 input.
import torch


def top_p_filter(probs, p):
    sorted_p, idx = probs.float().sort(dim=-1, descending=True)
    keep = (sorted_p.cumsum(-1) - sorted_p) < p
    out = torch.zeros_like(sorted_p).scatter(-1, idx, sorted_p * keep)
    return out / out.sum(-1, keepdim=True)
