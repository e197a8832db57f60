# variant: layout=bthd
# flash-attn's layout: heads split in place, (B, T, H, dh); the merge is the reshape back.
import torch


def split_heads(x, H):
    B, T, d = x.shape
    return x.view(B, T, H, d // H)


def merge_heads(x):
    B, T, H, dh = x.shape
    return x.reshape(B, T, H * dh)
