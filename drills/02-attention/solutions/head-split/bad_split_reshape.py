# trap: split-straight-reshape
def split_heads(x, H):
    B, T, d = x.shape
    return x.view(B, H, T, d // H)


def merge_heads(x):
    B, H, T, dh = x.shape
    return x.transpose(1, 2).reshape(B, T, H * dh)
