import torch


def masked_mean(x, mask):
    B, T, d = x.shape
    out = torch.zeros(B, d, dtype=x.dtype)
    for b in range(B):
        keep = mask[b] != 0
        if keep.any():
            out[b] = x[b][keep].float().mean(0).to(x.dtype)
    return out
