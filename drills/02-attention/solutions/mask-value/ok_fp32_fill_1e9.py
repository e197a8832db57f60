import torch
import torch.nn.functional as F


def masked_softmax(scores, keep):
    s = scores.to(torch.float32).masked_fill(keep.logical_not(), -1e9)
    return F.softmax(s, dim=-1).to(scores.dtype)
