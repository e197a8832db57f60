# trap: count-last-left-both
# variant: side=left
# Left padding by hand, and the right-padding rule for the last token in both functions: the
# lengths minus one, in pad_batch's last and in last_hidden's index.
import torch


def pad_batch(seqs, pad_id):
    B, T = len(seqs), max(len(s) for s in seqs)
    ids = torch.full((B, T), pad_id, dtype=torch.long)
    mask = torch.zeros((B, T), dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, T - len(s):] = torch.tensor(s)
        mask[i, T - len(s):] = 1
    lengths = mask.sum(-1)
    last = lengths - 1
    return ids, mask, last


def last_hidden(h, mask):
    lengths = mask.long().sum(-1)
    return h[torch.arange(h.shape[0]), lengths - 1]
