# trap: count-as-index  (the count used as the last index, read with gather: one past the end)
import torch


def pad_batch(seqs, pad_id):
    T = max(len(s) for s in seqs)
    ids = torch.tensor([s + [pad_id] * (T - len(s)) for s in seqs], dtype=torch.int64)
    mask = torch.tensor([[1] * len(s) + [0] * (T - len(s)) for s in seqs], dtype=torch.int64)
    return ids, mask, mask.sum(1) - 1


def last_hidden(h, mask):
    last = mask.long().sum(1)
    index = last[:, None, None].expand(-1, 1, h.shape[-1])
    return h.gather(1, index).squeeze(1)
