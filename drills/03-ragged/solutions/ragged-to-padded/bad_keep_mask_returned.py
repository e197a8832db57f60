# trap: keep-mask
# variant: mask=pad
# last_hidden reads the pad mask right, but pad_batch still returns 1 on the real tokens.
import torch


def pad_batch(seqs, pad_id):
    T = max(len(s) for s in seqs)
    ids = torch.tensor([list(s) + [pad_id] * (T - len(s)) for s in seqs], dtype=torch.long)
    mask = torch.tensor([[1] * len(s) + [0] * (T - len(s)) for s in seqs], dtype=torch.long)
    last = torch.tensor([len(s) - 1 for s in seqs], dtype=torch.long)
    return ids, mask, last


def last_hidden(h, mask):
    n_real = (~mask.bool()).long().sum(dim=1)
    return h[torch.arange(h.shape[0], device=h.device), n_real - 1]
