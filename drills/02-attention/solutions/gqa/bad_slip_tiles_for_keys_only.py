# trap: none  (keys shared as tiles, values interleaved: half of repeat-tiles, a mistake of its own)
import math

import torch


def gqa_attention(q, k, v):
    g = q.shape[1] // k.shape[1]
    k = k.repeat(1, g, 1, 1)
    v = v.repeat_interleave(g, dim=1)
    w = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1]), dim=-1)
    return w @ v
