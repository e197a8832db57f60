# trap: minus-1e9-where
import torch


def masked_softmax(scores, keep):
    x = torch.where(keep.bool(), scores, -1e9)
    return torch.softmax(x, -1)
