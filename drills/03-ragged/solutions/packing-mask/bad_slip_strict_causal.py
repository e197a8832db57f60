# trap: none
# tril(diagonal=-1): each token is hidden from itself, and a document's first token sees nothing.
import torch


def segment_ids(lengths):
    return torch.repeat_interleave(torch.arange(lengths.numel()), lengths)


def packing_mask(lengths):
    seg = segment_ids(lengths)
    T = seg.numel()
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool), diagonal=-1)
    return causal & (seg[:, None] == seg[None, :])
