import torch


def gqa_attention(q, k, v):
    B, H, T, dh = q.shape
    H_kv = k.shape[1]
    g = H // H_kv
    qg = q.reshape(B, H_kv, g, T, dh)                       # consecutive heads grouped
    s = qg @ k[:, :, None].transpose(-2, -1) * dh ** -0.5   # (B, H_kv, g, T, S)
    out = s.softmax(-1) @ v[:, :, None]                      # (B, H_kv, g, T, dh)
    return out.reshape(B, H, T, dh)
