import torch


def one_hot(labels, K):
    return torch.eye(K)[labels]


def class_counts(labels, K):
    return labels.bincount(minlength=K)
