# trap: last-position  (the final time step taken for every row, whatever its length)
import torch


def pad_batch(seqs, pad_id):
    T = max(map(len, seqs))
    ids = torch.full((len(seqs), T), pad_id, dtype=torch.int64)
    mask = torch.zeros((len(seqs), T), dtype=torch.int64)
    for i, s in enumerate(seqs):
        ids[i, :len(s)] = torch.tensor(s, dtype=torch.int64)
        mask[i, :len(s)] = 1
    return ids, mask, torch.tensor([len(s) - 1 for s in seqs], dtype=torch.int64)


def last_hidden(h, mask):
    B, T, _ = h.shape
    return h[torch.arange(B), torch.full((B,), T - 1, dtype=torch.long)]
