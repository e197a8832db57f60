import torch
from torch.nn.utils.rnn import pad_sequence


def pad_batch(seqs, pad_id):
    ts = [torch.tensor(s, dtype=torch.long) for s in seqs]
    lengths = torch.tensor([len(s) for s in seqs])
    ids = pad_sequence(ts, batch_first=True, padding_value=pad_id)
    mask = (torch.arange(ids.shape[1])[None, :] < lengths[:, None]).long()
    return ids, mask, lengths - 1


def last_hidden(h, mask):
    B, T, d = h.shape
    last = (mask != 0).sum(-1) - 1  # (B,)
    idx = last.view(B, 1, 1).expand(B, 1, d)
    return h.gather(1, idx).squeeze(1)
