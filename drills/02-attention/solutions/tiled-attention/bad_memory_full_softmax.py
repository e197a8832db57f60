# trap: full-score-matrix
# The block argument ignored: the whole (B, H, T, S) score matrix, then softmax. Right values, the memory of FlashAttention's "before".
import math

import torch


def tiled_attention(q, k, v, block):
    scores = q.float() @ k.float().transpose(-2, -1) / math.sqrt(q.shape[-1])
    return (torch.softmax(scores, dim=-1) @ v.float()).to(q.dtype)
