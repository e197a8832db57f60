# kernel: aten::one_hot
import torch


def one_hot(labels, K: int):
    return torch.ops.aten.one_hot(labels, K).float()


def class_counts(labels, K: int):
    return torch.zeros(K, dtype=torch.int64).index_add_(0, labels, torch.ones_like(labels))

