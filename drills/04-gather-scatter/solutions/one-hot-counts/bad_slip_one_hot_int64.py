# trap: none
# F.one_hot's convention, written by hand: an int64 matrix, where the contract asks float32.
import torch


def one_hot(labels, K):
    out = torch.zeros(labels.shape[0], K, dtype=torch.long)
    return out.scatter_(1, labels[:, None], 1)


def class_counts(labels, K):
    return torch.zeros(K, dtype=torch.long).index_add_(0, labels, torch.ones_like(labels))
