# trap: none
# Reads dh from the wrong axis: q.size(-2) is T, so the scale is 1/sqrt(T).
import math
import torch


def gqa_attention(q, k, v):
    group = q.size(1) // k.size(1)
    k = k.repeat_interleave(group, dim=1)
    v = v.repeat_interleave(group, dim=1)
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.size(-2))
    return torch.matmul(torch.softmax(scores, dim=-1), v)
