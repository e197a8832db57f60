# trap: attend-polarity
# variant: mask=blocked
# SDPA's reading (True = may attend) handed to an API that reads True as blocked.
import torch


def segment_ids(lengths):
    return torch.repeat_interleave(torch.arange(len(lengths), device=lengths.device), lengths)


def packing_mask(lengths):
    seg = segment_ids(lengths)
    T = seg.numel()
    return (seg[:, None] == seg[None, :]) & torch.ones(T, T, dtype=torch.bool, device=seg.device).tril()
