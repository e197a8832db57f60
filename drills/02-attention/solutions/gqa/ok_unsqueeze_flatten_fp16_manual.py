import torch


def gqa_attention(q, k, v):
    B, H, T, dh = q.shape
    g = H // k.shape[1]
    k = k.unsqueeze(2).expand(-1, -1, g, -1, -1).flatten(1, 2)
    v = v.unsqueeze(2).expand(-1, -1, g, -1, -1).flatten(1, 2)
    s = torch.matmul(q, k.transpose(2, 3)) / dh ** 0.5
    s = s - s.amax(-1, keepdim=True)
    e = s.exp()
    return (e / e.sum(-1, keepdim=True)) @ v
