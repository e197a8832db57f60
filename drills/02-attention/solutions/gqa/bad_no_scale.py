# trap: no-scale
import torch


def gqa_attention(q, k, v):
    B, H, T, dh = q.shape
    Hk = k.shape[1]
    qg = q.reshape(B, Hk, H // Hk, T, dh)
    s = qg @ k.unsqueeze(2).transpose(-2, -1)
    return (s.softmax(-1) @ v.unsqueeze(2)).reshape(B, H, T, dh)
