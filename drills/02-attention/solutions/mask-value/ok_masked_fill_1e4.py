import torch


def masked_softmax(scores, keep):
    # -1e4 is finite in fp16 and, as a replacement (not a bias), leaves fully masked rows all equal
    return scores.masked_fill(~keep.bool(), -1e4).softmax(dim=-1)
