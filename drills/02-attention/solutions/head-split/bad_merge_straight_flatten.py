# trap: merge-without-transpose  (split right; merge flattens the (B, H, T, dh) memory straight into (B, T, d))
import torch


def split_heads(x, H):
    B, T, d = x.shape
    return x.reshape(B, T, H, d // H).permute(0, 2, 1, 3)


def merge_heads(x):
    B, H, T, dh = x.shape
    return torch.flatten(x.contiguous(), start_dim=1).view(B, T, H * dh)
