# trap: gather-not-scatter
import torch


def top_p_filter(probs, p):
    s, idx = probs.sort(-1, descending=True)
    s = torch.where(s.cumsum(-1) - s < p, s, torch.zeros_like(s))
    out = torch.gather(s, 1, idx)
    return out / out.sum(-1, keepdim=True)
