import torch


def masked_softmax(scores, keep):
    m = keep.bool().expand_as(scores)
    x = scores.float().masked_fill(~m, float("-inf"))
    mx = x.amax(dim=-1, keepdim=True)
    mx = torch.where(torch.isfinite(mx), mx, torch.zeros_like(mx))
    e = torch.exp(x - mx) * m
    denom = e.sum(dim=-1, keepdim=True).clamp_min(1e-30)
    return (e / denom).to(scores.dtype)
