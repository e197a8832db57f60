# trap: split-dh-major
def split_heads(x, H):
    B, T, d = x.shape
    return x.reshape(B, T, d // H, H).transpose(1, 3).transpose(2, 3)


def merge_heads(x):
    B, H, T, dh = x.shape
    return x.transpose(1, 2).reshape(B, T, H * dh)
