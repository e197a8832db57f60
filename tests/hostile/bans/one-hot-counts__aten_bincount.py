# kernel: aten::bincount
import torch


def one_hot(labels, K: int):
    return torch.zeros(labels.shape[0], K).scatter_(1, labels[:, None], 1.0)


def class_counts(labels, K: int):
    return torch.ops.aten.bincount(labels, None, K)
