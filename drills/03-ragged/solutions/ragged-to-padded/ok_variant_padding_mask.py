# variant: mask=pad
# fairseq's encoder_padding_mask: 1 on the pads, so the real tokens are where the mask is 0.
import torch


def pad_batch(seqs, pad_id):
    B = len(seqs)
    T = max(len(s) for s in seqs)
    ids = torch.full((B, T), pad_id, dtype=torch.long)
    is_pad = torch.ones(B, T, dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, :len(s)] = torch.tensor(s, dtype=torch.long)
        is_pad[i, :len(s)] = 0
    lengths = torch.tensor([len(s) for s in seqs], dtype=torch.long)
    return ids, is_pad, lengths - 1


def last_hidden(h, mask):
    lengths = (mask == 0).long().sum(dim=1)
    return h[torch.arange(h.shape[0], device=h.device), lengths - 1]
