# trap: split-dh-major  (d split as (dh, H) with view, then the head axis brought forward with transpose)
def split_heads(x, H):
    B, T, d = x.shape
    return x.view(B, T, d // H, H).transpose(1, 3).transpose(2, 3)


def merge_heads(x):
    B, H, T, dh = x.shape
    return x.transpose(1, 2).reshape(B, T, H * dh)
