# trap: mask-from-ids
import torch


def pad_batch(seqs, pad_id):
    T = max(map(len, seqs))
    ids = torch.tensor([list(s) + [pad_id] * (T - len(s)) for s in seqs])
    mask = (ids != pad_id).long()
    return ids, mask, mask.sum(1) - 1


def last_hidden(h, mask):
    B = h.shape[0]
    return h[torch.arange(B), mask.long().sum(1) - 1]
