import math
import torch


def gqa_attention(q, k, v):
    group = q.size(1) // k.size(1)
    k = torch.repeat_interleave(k, group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    w = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)), dim=-1)
    return w @ v
