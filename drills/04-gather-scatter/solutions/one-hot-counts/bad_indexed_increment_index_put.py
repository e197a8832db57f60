# trap: indexed-increment  (index_put_ without accumulate=True: repeated labels collapse to one write)
import torch


def one_hot(labels, K):
    out = torch.zeros(labels.shape[0], K, device=labels.device)
    out[torch.arange(labels.shape[0], device=labels.device), labels] = 1.0
    return out


def class_counts(labels, K):
    counts = torch.zeros(K, dtype=torch.long, device=labels.device)
    return counts.index_put_((labels,), torch.ones_like(labels))
