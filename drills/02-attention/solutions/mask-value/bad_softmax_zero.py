# trap: softmax-then-zero
import torch


def masked_softmax(scores, keep):
    p = torch.softmax(scores, dim=-1)
    return p.masked_fill(keep == 0, 0.0)
