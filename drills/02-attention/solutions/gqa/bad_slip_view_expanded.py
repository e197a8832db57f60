# trap: none
# Repeats the kv heads with expand, then merges the axes with .view: an expanded
# tensor is not contiguous, so view raises whenever a kv head is really shared
# by several query heads across several kv heads.
import math


def gqa_attention(q, k, v):
    B, H, T, dh = q.shape
    _, H_kv, S, _ = k.shape
    G = H // H_kv
    k = k[:, :, None].expand(B, H_kv, G, S, dh).view(B, H, S, dh)
    v = v[:, :, None].expand(B, H_kv, G, S, dh).view(B, H, S, dh)
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
    return scores.softmax(-1) @ v
