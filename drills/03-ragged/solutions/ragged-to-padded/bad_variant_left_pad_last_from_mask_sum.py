# trap: count-last-left
# variant: side=left
# torch.flip to pad on the left (pad_sequence only pads on the right), then last from the mask.
import torch
from torch.nn.utils.rnn import pad_sequence


def pad_batch(seqs, pad_id):
    rev = [torch.tensor(s[::-1], dtype=torch.int64) for s in seqs]
    ids = pad_sequence(rev, batch_first=True, padding_value=pad_id).flip(1)
    ones = [torch.ones(len(s), dtype=torch.int64) for s in seqs]
    mask = pad_sequence(ones, batch_first=True, padding_value=0).flip(1)
    last = mask.sum(dim=1) - 1
    return ids, mask, last


def last_hidden(h, mask):
    return h[:, -1]
