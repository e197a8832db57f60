import torch


def pad_batch(seqs, pad_id):
    T = max(map(len, seqs))
    ids, mask, last = [], [], []
    for s in seqs:
        ids.append(list(s) + [pad_id] * (T - len(s)))
        mask.append([1] * len(s) + [0] * (T - len(s)))
        last.append(len(s) - 1)
    return torch.tensor(ids), torch.tensor(mask), torch.tensor(last)


def last_hidden(h, mask):
    rows = []
    for b in range(h.shape[0]):
        real = torch.nonzero(mask[b]).flatten()
        rows.append(h[b, int(real.max())])
    return torch.stack(rows)
