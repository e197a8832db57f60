# trap: nan-hidden
# An additive -inf mask, then the NaN rows zeroed with torch.where after the softmax: the values pass, the
# gradient of scores is NaN on every row with no kept key.
import torch


def masked_softmax(scores, keep):
    bias = torch.zeros_like(scores).masked_fill(keep == 0, float("-inf"))  # (B, H, T, S)
    p = torch.softmax(scores + bias, dim=-1)
    return torch.where(torch.isnan(p), torch.zeros_like(p), p)
