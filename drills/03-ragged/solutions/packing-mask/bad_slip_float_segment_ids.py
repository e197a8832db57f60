# trap: none
# Start markers in a float tensor: the ids are right, but they come out float32, not int64.
import torch


def segment_ids(lengths):
    T = int(lengths.sum())
    starts = torch.zeros(T)
    starts[lengths.cumsum(0)[:-1]] = 1
    return starts.cumsum(0)


def packing_mask(lengths):
    seg = torch.repeat_interleave(torch.arange(len(lengths)), lengths)
    T = seg.numel()
    return (seg[:, None] == seg[None, :]) & torch.ones(T, T, dtype=torch.bool).tril()
