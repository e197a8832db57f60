import torch


def masked_softmax(scores, keep):
    x = scores.masked_fill(keep == 0, float("-inf"))
    p = x.softmax(-1)            # rows with no kept key are NaN here
    return torch.nan_to_num(p, nan=0.0)   # ... and all zeros after
