# trap: last-position
import torch


def pad_batch(seqs, pad_id):
    T = max(map(len, seqs))
    ids = torch.tensor([list(s) + [pad_id] * (T - len(s)) for s in seqs])
    mask = torch.tensor([[1] * len(s) + [0] * (T - len(s)) for s in seqs])
    return ids, mask, mask.sum(1) - 1


def last_hidden(h, mask):
    return h[:, -1, :]
