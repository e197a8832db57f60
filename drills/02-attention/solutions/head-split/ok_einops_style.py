import torch


def split_heads(x, H):
    B, T, d = x.shape
    dh = d // H
    return x.view(B, T, H, dh).permute(0, 2, 1, 3)  # (B, H, T, dh)


def merge_heads(x):
    B, H, T, dh = x.shape
    return x.permute(0, 2, 1, 3).contiguous().view(B, T, H * dh)  # (B, T, d)
