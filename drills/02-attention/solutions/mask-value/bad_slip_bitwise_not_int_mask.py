# trap: none
# finfo.min is the right fill, but ~keep on an int64 or float mask is no bool mask:
# masked_fill raises unless keep arrives as bool.
import torch


def masked_softmax(scores, keep):
    return scores.masked_fill(~keep, torch.finfo(scores.dtype).min).softmax(-1)
