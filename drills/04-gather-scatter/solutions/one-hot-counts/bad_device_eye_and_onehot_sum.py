# device: mixes CPU tensors with the inputs (correct on a CPU, an error on a GPU)
import torch


def one_hot(labels, K):
    return torch.eye(K)[labels]


def class_counts(labels, K):
    return one_hot(labels, K).sum(0).long()
