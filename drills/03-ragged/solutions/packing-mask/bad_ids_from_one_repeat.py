# trap: ids-from-one  (segment ids numbered from 1 with repeat_interleave; the mask itself is right)
import torch


def segment_ids(lengths):
    lengths = torch.as_tensor(lengths)
    return torch.repeat_interleave(torch.arange(1, lengths.numel() + 1), lengths)


def packing_mask(lengths):
    lengths = torch.as_tensor(lengths)
    seg = torch.repeat_interleave(torch.arange(lengths.numel()), lengths)
    T = seg.numel()
    pos = torch.arange(T)
    return (seg[:, None] == seg[None, :]) & (pos[None, :] <= pos[:, None])
