import torch


def masked_softmax(scores, keep):
    k = keep != 0                                   # (B, 1, T, S)
    p = torch.softmax(scores.masked_fill(~k, torch.finfo(scores.dtype).min), dim=-1)
    alive = k.any(dim=-1, keepdim=True)             # rows with at least one kept key
    return p * alive                                # fully masked rows become zeros
