# trap: none
# last_hidden indexes with mask.sum(1) - 1 in the mask's own dtype: a float mask
# gives float indices, which torch refuses.
import torch


def pad_batch(seqs, pad_id):
    B, T = len(seqs), max(len(s) for s in seqs)
    ids = torch.full((B, T), pad_id, dtype=torch.long)
    mask = torch.zeros(B, T, dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, :len(s)] = torch.tensor(s)
        mask[i, :len(s)] = 1
    return ids, mask, mask.sum(1) - 1


def last_hidden(h, mask):
    last = mask.sum(1) - 1
    return h[torch.arange(h.shape[0]), last]
