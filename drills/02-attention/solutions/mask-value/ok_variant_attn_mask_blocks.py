# variant: mask=pad
# nn.MultiheadAttention's boolean attn_mask: True marks a key the query may not read.
import torch


def masked_softmax(scores, keep):
    blocked = keep.bool()                                   # (B, 1, T, S), True = masked out
    x = scores.masked_fill(blocked, torch.finfo(scores.dtype).min)
    return x.softmax(dim=-1)
