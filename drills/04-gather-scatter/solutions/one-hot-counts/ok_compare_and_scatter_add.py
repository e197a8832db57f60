import torch


def one_hot(labels, K: int):
    return (labels[:, None] == torch.arange(K, device=labels.device)[None, :]).float()


def class_counts(labels, K: int):
    return labels.new_zeros(K).scatter_add_(0, labels, torch.ones_like(labels))
