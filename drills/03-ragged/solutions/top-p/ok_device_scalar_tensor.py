import torch


def top_p_filter(probs, p):
    # 0-d CPU tensors and Python scalars mix with GPU tensors: this runs on any device
    s, idx = probs.sort(dim=-1, descending=True)
    before = s.cumsum(-1) - s  # mass strictly before each token
    keep = before < torch.tensor(p)  # a 0-d CPU tensor
    kept = torch.where(keep, s, torch.tensor(0.0, dtype=s.dtype))  # another one
    out = torch.zeros_like(probs).scatter(1, idx, kept)
    return out / out.sum(1, keepdim=True)
