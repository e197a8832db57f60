import torch


def one_hot(labels, K):
    return torch.eye(K, device=labels.device)[labels]


def class_counts(labels, K):
    return one_hot(labels, K).sum(0).long()
