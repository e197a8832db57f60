# trap: no-padding  (only the causal triangle, repeated over the batch; the padding never used)
import torch


def combined_keep_mask(pad_mask):
    B, T = pad_mask.shape
    tri = torch.tril(torch.ones(T, T, device=pad_mask.device)).bool()
    return tri.repeat(B, 1, 1, 1)
