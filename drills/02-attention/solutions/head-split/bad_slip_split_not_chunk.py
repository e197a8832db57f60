# trap: none
# torch.split(x, H) cuts pieces of size H (there are dh of them); chunk(H) was meant.
import torch


def split_heads(x, H):
    return torch.stack(x.split(H, dim=-1), dim=1)


def merge_heads(x):
    B, H, T, dh = x.shape
    return x.transpose(1, 2).reshape(B, T, H * dh)
