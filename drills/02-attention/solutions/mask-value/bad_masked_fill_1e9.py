# trap: minus-1e9-masked-fill
import torch


def masked_softmax(scores, keep):
    return torch.softmax(scores.masked_fill(keep == 0, -1e9), dim=-1)
