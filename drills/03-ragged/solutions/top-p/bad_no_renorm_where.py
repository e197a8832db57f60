# trap: no-renorm  (the nucleus kept with where and an inverse permutation, but never renormalised)
import torch


def top_p_filter(probs, p):
    sorted_p, order = torch.sort(probs, descending=True, dim=-1)
    before = torch.cumsum(sorted_p, dim=-1) - sorted_p
    keep_sorted = before < p
    inverse = torch.argsort(order, dim=-1)
    keep = torch.gather(keep_sorted, -1, inverse)
    return torch.where(keep, probs, torch.zeros_like(probs))
