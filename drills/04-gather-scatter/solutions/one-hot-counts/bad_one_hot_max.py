# trap: one-hot-sized-by-max-label
import torch


def one_hot(labels, K):
    return torch.eye(int(labels.max()) + 1)[labels]


def class_counts(labels, K):
    return torch.zeros(K, dtype=torch.int64).index_add_(0, labels, torch.ones_like(labels))
