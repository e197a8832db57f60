# trap: minus-1e9-additive
import torch


def masked_softmax(scores, keep):
    return torch.softmax(scores + (keep == 0).float() * -1e9, dim=-1)
