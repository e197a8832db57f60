import torch


def segment_ids(lengths):
    ends = lengths.cumsum(0)
    return torch.searchsorted(ends, torch.arange(int(ends[-1])), right=True)


def packing_mask(lengths):
    seg = segment_ids(lengths)
    T = seg.shape[0]
    return torch.block_diag(*[torch.ones(int(n), int(n)) for n in lengths]).bool() & torch.ones(T, T).tril().bool()
