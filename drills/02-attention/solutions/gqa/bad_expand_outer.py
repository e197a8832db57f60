# trap: repeat-tiles
import torch


def gqa_attention(q, k, v):
    B, H, T, dh = q.shape
    Hk, S = k.shape[1], k.shape[2]
    g = H // Hk
    k = k[:, None].expand(B, g, Hk, S, dh).reshape(B, H, S, dh)   # group axis on the wrong side
    v = v[:, None].expand(B, g, Hk, S, dh).reshape(B, H, S, dh)
    return (q @ k.transpose(-2, -1) / dh ** 0.5).softmax(-1) @ v
