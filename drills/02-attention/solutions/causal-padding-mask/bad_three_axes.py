# trap: no-head-axis
import torch


def combined_keep_mask(pad_mask):
    T = pad_mask.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    return causal.unsqueeze(0) & pad_mask.bool().unsqueeze(1)
