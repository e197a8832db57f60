# trap: none
# The old uint8 mask convention: right pattern, but the dtype is uint8, not bool.
import torch


def combined_keep_mask(pad_mask):
    B, T = pad_mask.shape
    causal = torch.tril(torch.ones(T, T, dtype=torch.uint8))
    return causal[None, None] & (pad_mask != 0).to(torch.uint8)[:, None, None, :]
