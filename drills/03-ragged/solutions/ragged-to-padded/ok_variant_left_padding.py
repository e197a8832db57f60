# variant: side=left
# Hugging Face's padding_side="left" for batched generation: the pads first, every row ends at T - 1.
import torch


def pad_batch(seqs, pad_id):
    T = max(len(s) for s in seqs)
    ids = torch.tensor([[pad_id] * (T - len(s)) + list(s) for s in seqs], dtype=torch.int64)
    mask = torch.tensor([[0] * (T - len(s)) + [1] * len(s) for s in seqs], dtype=torch.int64)
    last = torch.full((len(seqs),), T - 1, dtype=torch.int64)
    return ids, mask, last


def last_hidden(h, mask):
    return h[:, -1]
