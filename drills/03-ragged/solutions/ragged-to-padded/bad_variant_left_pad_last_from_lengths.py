# trap: count-last-left
# variant: side=left
# Left padding for generation, done by hand, and then the index of the last token from the
# lengths, the way it is written for right padding.
import torch


def pad_batch(seqs, pad_id):
    lengths = torch.tensor([len(s) for s in seqs])
    T = int(lengths.max())
    ids = torch.full((len(seqs), T), pad_id, dtype=torch.long)
    mask = torch.zeros(len(seqs), T, dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, T - len(s):] = torch.tensor(s, dtype=torch.long)
        mask[i, T - len(s):] = 1
    last = lengths - 1  # index of the last real token
    return ids, mask, last


def last_hidden(h, mask):
    return h[:, -1, :]
