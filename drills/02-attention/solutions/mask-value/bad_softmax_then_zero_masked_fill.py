# trap: softmax-then-zero  (softmax over every key, then the masked weights zeroed: rows no longer sum to 1)
import torch


def masked_softmax(scores, keep):
    w = torch.softmax(scores, dim=-1)
    return w.masked_fill(keep == 0, 0.0)
