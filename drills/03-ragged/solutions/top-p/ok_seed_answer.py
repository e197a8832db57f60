import torch


def top_p_filter(probs, p):
    sorted_p, idx = torch.sort(probs, dim=-1, descending=True)
    cum = torch.cumsum(sorted_p, dim=-1)
    drop = cum - sorted_p > p
    sorted_p = sorted_p.masked_fill(drop, 0.0)
    out = torch.zeros_like(probs).scatter_(-1, idx, sorted_p)
    out = out / out.sum(-1, keepdim=True)
    return out
