# trap: none
# Counts by summing a one-hot matrix: right on every case, but an (N, K) matrix (3.7 GiB at N=10^6, K=1000)
import torch


def one_hot(labels, K):
    return torch.eye(K, device=labels.device)[labels]


def class_counts(labels, K):
    return one_hot(labels, K).sum(0).long()
