# trap: plain-mean
import torch


def masked_mean(x, mask):
    return x.mean(1)
