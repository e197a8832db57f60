# trap: padding-on-queries
import torch


def combined_keep_mask(pad_mask):
    B, T = pad_mask.shape
    causal = torch.tril(torch.ones(T, T)).bool()
    return causal.expand(B, 1, T, T) & pad_mask.bool().view(B, 1, T, 1)
