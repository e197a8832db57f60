# trap: cum-gt-p
import torch


def top_p_filter(probs, p):
    s, idx = probs.sort(-1, descending=True)
    s = s.masked_fill(s.cumsum(-1) > p, 0)
    out = torch.zeros_like(probs).scatter(-1, idx, s)
    return out / out.sum(-1, keepdim=True)
