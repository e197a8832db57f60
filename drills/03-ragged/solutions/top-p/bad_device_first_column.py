# device: the always-kept first column is made on the CPU (correct on a CPU, an error on a GPU)
import torch


def top_p_filter(probs, p):
    s, idx = probs.sort(dim=-1, descending=True)
    cum = s.cumsum(-1)
    keep = torch.cat([torch.ones(cum.shape[0], 1, dtype=torch.bool), cum[:, :-1] < p], dim=-1)
    kept = torch.where(keep, s, torch.zeros_like(s))
    out = torch.empty_like(probs)
    out.scatter_(1, idx, kept)
    return out / out.sum(1, keepdim=True)
