# kernel: aten::scaled_dot_product_attention
import torch


def gqa_attention(q, k, v):
    group = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    return torch.ops.aten.scaled_dot_product_attention(q, k, v)
