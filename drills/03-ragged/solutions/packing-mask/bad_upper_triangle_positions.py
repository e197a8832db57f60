# trap: upper-triangle  (block-diagonal by segment, but each query keeps the keys after it: <= the wrong way round)
import torch


def segment_ids(lengths):
    lengths = torch.as_tensor(lengths)
    return torch.repeat_interleave(torch.arange(lengths.numel()), lengths)


def packing_mask(lengths):
    seg = segment_ids(lengths)
    pos = torch.arange(seg.numel())
    return (seg.unsqueeze(1) == seg.unsqueeze(0)) & (pos.unsqueeze(1) <= pos.unsqueeze(0))
