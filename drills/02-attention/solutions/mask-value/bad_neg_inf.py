# trap: neg-inf
import torch


def masked_softmax(scores, keep):
    return scores.masked_fill(keep == 0, -float("inf")).softmax(dim=-1)
