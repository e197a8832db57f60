# variant: input=tbd
# fairseq's MultiheadAttention: x is Time x Batch x Channel; heads are folded into the batch as (B*H, T, dh).
def split_heads(x, H):
    T, B, d = x.shape
    dh = d // H
    folded = x.contiguous().view(T, B * H, dh).transpose(0, 1)   # (B*H, T, dh), batch-major
    return folded.view(B, H, T, dh)


def merge_heads(x):
    B, H, T, dh = x.shape
    folded = x.reshape(B * H, T, dh)
    return folded.transpose(0, 1).contiguous().view(T, B, H * dh)
