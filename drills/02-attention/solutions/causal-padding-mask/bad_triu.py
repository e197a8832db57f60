# trap: triu-for-tril
import torch


def combined_keep_mask(pad_mask):
    T = pad_mask.shape[1]
    causal = torch.triu(torch.ones(T, T, dtype=torch.bool))
    return causal[None, None] & (pad_mask > 0)[:, None, None, :]
