# trap: repeat-tiles
import math
import torch


def gqa_attention(q, k, v):
    n_rep = q.shape[1] // k.shape[1]
    k = k.repeat(1, n_rep, 1, 1)
    v = v.repeat(1, n_rep, 1, 1)
    return torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), -1) @ v
