# trap: cum-gt-p  (the drop mask built in sorted order as cum > p and scattered back; the token that crosses p is dropped)
import torch


def top_p_filter(probs, p):
    sorted_p, order = probs.sort(dim=-1, descending=True)
    drop_sorted = sorted_p.cumsum(dim=-1) > p
    drop = torch.zeros_like(drop_sorted).scatter(-1, order, drop_sorted)
    kept = probs.masked_fill(drop, 0.0)
    return kept / kept.sum(dim=-1, keepdim=True)
