import torch


def combined_keep_mask(pad_mask):
    B, T = pad_mask.shape
    causal = torch.tril(torch.ones(T, T).to(pad_mask.device))             # float (T, T)
    keep = causal.view(1, 1, T, T) * pad_mask.float().view(B, 1, 1, T)
    return keep > 0.5
