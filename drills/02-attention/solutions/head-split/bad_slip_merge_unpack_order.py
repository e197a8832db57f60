# trap: none
# merge_heads unpacks the shape in (B, T, H, dh) order, so "T" is really H.
def split_heads(x, H):
    B, T, d = x.shape
    return x.reshape(B, T, H, d // H).transpose(1, 2)


def merge_heads(x):
    B, T, H, dh = x.shape  # really (B, H, T, dh)
    return x.transpose(1, 2).reshape(B, T, H * dh)
