import torch


def segment_ids(lengths):
    out = []
    for k, n in enumerate(lengths.tolist()):
        out += [k] * n
    return torch.tensor(out, dtype=torch.long)


def packing_mask(lengths):
    T = int(lengths.sum())
    keep = torch.zeros(T, T, dtype=torch.bool)
    start = 0
    for n in lengths.tolist():
        keep[start:start + n, start:start + n] = torch.ones(n, n).tril().bool()
        start += n
    return keep
