# trap: missing-transpose
import torch


def scores_without_einsum(q, k):
    return q @ k.permute(0, 2, 3, 1)
