# trap: ids-from-one
import torch


def segment_ids(lengths):
    T = int(lengths.sum())
    starts = lengths.cumsum(0) - lengths
    seg = torch.zeros(T, dtype=torch.long)
    seg[starts] = 1
    return seg.cumsum(0)


def packing_mask(lengths):
    seg = torch.repeat_interleave(torch.arange(len(lengths)), lengths)
    T = seg.shape[0]
    return (seg[:, None] == seg[None, :]) & torch.ones(T, T, dtype=torch.bool).tril()
