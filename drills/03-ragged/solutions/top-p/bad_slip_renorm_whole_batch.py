# trap: none
# Renormalises by the sum of the whole batch (no dim), not by each row's sum.
import torch


def top_p_filter(probs, p):
    sorted_p, idx = probs.sort(dim=-1, descending=True)
    before = sorted_p.cumsum(-1) - sorted_p
    sorted_p = torch.where(before < p, sorted_p, torch.zeros_like(sorted_p))
    out = torch.zeros_like(probs).scatter(-1, idx, sorted_p)
    return out / out.sum()
