# trap: counts-sized-by-max-label
import torch


def one_hot(labels, K):
    return torch.eye(K)[labels]


def class_counts(labels, K):
    n = labels.max().item() + 1
    counts = torch.zeros(n, dtype=torch.int64)
    counts.index_add_(0, labels, torch.ones_like(labels))
    return counts
