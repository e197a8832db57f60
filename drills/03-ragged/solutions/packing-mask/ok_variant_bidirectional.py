# variant: causal=bidirectional
# xformers' BlockDiagonalMask: every token sees its whole document, in both directions.
import torch


def segment_ids(lengths):
    starts = torch.zeros(int(lengths.sum()), dtype=torch.long, device=lengths.device)
    starts[lengths.cumsum(0)[:-1]] = 1
    return starts.cumsum(0)


def packing_mask(lengths):
    seg = segment_ids(lengths)
    return seg.unsqueeze(1) == seg.unsqueeze(0)
