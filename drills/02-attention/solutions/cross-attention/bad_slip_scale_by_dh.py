# trap: none
# Divides the scores by dh instead of sqrt(dh).
import torch


def cross_attention(Q, K, V, enc_pad_mask, H):
    B, T, d = Q.shape
    S = K.shape[1]
    dh = d // H
    q = Q.reshape(B, T, H, dh).permute(0, 2, 1, 3)
    k = K.reshape(B, S, H, dh).permute(0, 2, 1, 3)
    v = V.reshape(B, S, H, dh).permute(0, 2, 1, 3)
    scores = q @ k.transpose(-2, -1) / dh
    scores = scores.masked_fill(enc_pad_mask[:, None, None, :] == 0, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    out = (weights @ v).permute(0, 2, 1, 3).reshape(B, T, d)
    return out, weights
