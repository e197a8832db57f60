# trap: none
# class_counts sums the float one-hot matrix: right numbers, float32 instead of int64.
import torch


def one_hot(labels, K):
    return (labels[:, None] == torch.arange(K)[None, :]).float()


def class_counts(labels, K):
    return one_hot(labels, K).sum(0)
