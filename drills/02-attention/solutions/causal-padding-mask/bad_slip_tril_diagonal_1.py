# trap: none
# Off by one on the causal triangle: diagonal=1 lets each query read the next key too.
import torch


def combined_keep_mask(pad_mask):
    B, T = pad_mask.shape
    causal = torch.ones(T, T, dtype=torch.bool).tril(diagonal=1)
    return causal[None, None] & pad_mask.bool()[:, None, None, :]
