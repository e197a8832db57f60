import numpy as np
import torch


def pad_batch(seqs, pad_id):
    B = len(seqs)
    T = max(len(s) for s in seqs)
    ids = np.full((B, T), pad_id, dtype=np.int64)
    mask = np.zeros((B, T), dtype=np.int64)
    for i, s in enumerate(seqs):
        ids[i, :len(s)] = s
        mask[i, :len(s)] = 1
    last = mask.sum(axis=1) - 1
    return torch.from_numpy(ids), torch.from_numpy(mask), torch.from_numpy(last)


def last_hidden(h, mask):
    B = h.shape[0]
    last = torch.as_tensor(mask.sum(1) - 1).long()
    return h[torch.arange(B), last]
