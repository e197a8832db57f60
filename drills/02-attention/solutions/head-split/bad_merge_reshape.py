# trap: merge-without-transpose
import torch


def split_heads(x, H):
    B, T, d = x.shape
    return x.reshape(B, T, H, d // H).transpose(1, 2)


def merge_heads(x):
    B, H, T, dh = x.shape
    return x.reshape(B, T, H * dh)
