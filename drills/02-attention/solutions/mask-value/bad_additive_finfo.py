# trap: additive-finfo-min
import torch


def masked_softmax(scores, keep):
    bias = torch.zeros(keep.shape, dtype=scores.dtype)
    bias = bias.masked_fill(~keep.bool(), torch.finfo(scores.dtype).min)
    return (scores + bias).softmax(-1)
