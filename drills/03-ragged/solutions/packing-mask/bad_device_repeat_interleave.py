# device: mixes CPU tensors with the inputs (correct on a CPU, an error on a GPU)
import torch


def segment_ids(lengths):
    return torch.repeat_interleave(torch.arange(len(lengths)), lengths)


def packing_mask(lengths):
    seg = segment_ids(lengths)
    pos = torch.arange(seg.numel())
    return (seg.unsqueeze(1) == seg.unsqueeze(0)) & (pos.unsqueeze(1) >= pos.unsqueeze(0))
