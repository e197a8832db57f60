import torch


def segment_ids(lengths):
    return torch.repeat_interleave(torch.arange(len(lengths), device=lengths.device), lengths)


def packing_mask(lengths):
    seg = segment_ids(lengths)
    pos = torch.arange(seg.numel(), device=seg.device)
    return (seg.unsqueeze(1) == seg.unsqueeze(0)) & (pos.unsqueeze(1) >= pos.unsqueeze(0))
