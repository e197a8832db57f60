# trap: plain-causal
import torch


def segment_ids(lengths):
    return torch.repeat_interleave(torch.arange(len(lengths)), lengths)


def packing_mask(lengths):
    T = int(lengths.sum())
    return torch.ones(T, T, dtype=torch.bool).tril()
