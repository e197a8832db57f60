import torch


def top_p_filter(probs, p: float):
    x = probs.float()
    s, idx = torch.sort(x, -1, descending=True)
    before = s.cumsum(-1) - s
    keep_sorted = before < p
    keep = torch.zeros_like(keep_sorted).scatter(-1, idx, keep_sorted)
    y = x * keep
    return (y / y.sum(-1, keepdim=True)).to(probs.dtype)
