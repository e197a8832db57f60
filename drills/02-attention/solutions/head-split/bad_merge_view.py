# trap: merge-view-after-transpose
def split_heads(x, H):
    B, T, d = x.shape
    return x.reshape(B, T, H, d // H).transpose(1, 2)


def merge_heads(x):
    B, H, T, dh = x.shape
    return x.transpose(1, 2).view(B, T, -1)
