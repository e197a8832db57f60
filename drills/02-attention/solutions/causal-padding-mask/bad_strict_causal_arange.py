# trap: strict-causal  (the causal part built from positions with <, so no token sees itself)
import torch


def combined_keep_mask(pad_mask):
    B, T = pad_mask.shape
    pos = torch.arange(T, device=pad_mask.device)
    causal = pos[None, :] < pos[:, None]
    return causal.view(1, 1, T, T) & (pad_mask != 0).view(B, 1, 1, T)
