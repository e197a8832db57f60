# trap: repeat-tiles  (kv heads shared by expand + reshape over a new axis in front: tiles, not interleaved)
import math

import torch


def gqa_attention(q, k, v):
    B, H, T, dh = q.shape
    H_kv, S = k.shape[1], k.shape[2]
    g = H // H_kv
    k = k[:, None].expand(B, g, H_kv, S, dh).reshape(B, H, S, dh)
    v = v[:, None].expand(B, g, H_kv, S, dh).reshape(B, H, S, dh)
    w = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(dh), dim=-1)
    return w @ v
