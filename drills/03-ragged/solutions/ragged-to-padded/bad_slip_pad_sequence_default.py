# trap: none
# pad_sequence pads with its default padding_value=0, not with pad_id.
import torch
from torch.nn.utils.rnn import pad_sequence


def pad_batch(seqs, pad_id):
    ids = pad_sequence([torch.tensor(s) for s in seqs], batch_first=True)
    lengths = torch.tensor([len(s) for s in seqs])
    mask = (torch.arange(ids.shape[1])[None, :] < lengths[:, None]).long()
    return ids, mask, lengths - 1


def last_hidden(h, mask):
    last = mask.long().sum(1) - 1
    return h[torch.arange(h.shape[0]), last]
