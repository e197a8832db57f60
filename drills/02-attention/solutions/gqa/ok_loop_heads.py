import math
import torch


def gqa_attention(q, k, v):
    B, H, T, dh = q.shape
    group = H // k.shape[1]
    outs = []
    for h in range(H):
        kv = h // group
        s = q[:, h] @ k[:, kv].transpose(1, 2) / math.sqrt(dh)
        outs.append(torch.softmax(s.float(), -1).to(q.dtype) @ v[:, kv])
    return torch.stack(outs, dim=1)
