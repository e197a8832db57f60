import torch


def combined_keep_mask(pad_mask):
    B, T = pad_mask.shape
    i = torch.arange(T, device=pad_mask.device).view(1, 1, T, 1)
    j = torch.arange(T, device=pad_mask.device).view(1, 1, 1, T)
    real = pad_mask.view(B, 1, 1, T) != 0
    return torch.where(j <= i, real, torch.zeros((), dtype=torch.bool))
