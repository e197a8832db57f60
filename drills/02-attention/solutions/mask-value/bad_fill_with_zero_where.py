# trap: fill-with-zero  (masked scores set to 0, a real score, before the softmax)
import torch


def masked_softmax(scores, keep):
    s = torch.where(keep.bool(), scores, torch.zeros_like(scores))
    return s.softmax(-1)
