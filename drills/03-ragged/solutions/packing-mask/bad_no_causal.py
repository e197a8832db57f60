# trap: no-causal
import torch


def segment_ids(lengths):
    return torch.repeat_interleave(torch.arange(len(lengths)), lengths)


def packing_mask(lengths):
    seg = segment_ids(lengths)
    return seg[:, None] == seg[None, :]
