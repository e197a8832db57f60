# trap: weights-head-averaged  (the weights averaged over heads, as nn.MultiheadAttention returns them)
import torch


def cross_attention(Q, K, V, enc_pad_mask, H):
    B, T, d = Q.shape
    S = K.shape[1]
    dh = d // H
    q = Q.view(B, T, H, dh)
    k = K.view(B, S, H, dh)
    v = V.view(B, S, H, dh)
    s = torch.einsum("bthe,bshe->bhts", q, k) / dh ** 0.5
    s = s.masked_fill(~enc_pad_mask.bool()[:, None, None, :], float("-inf"))
    w = s.softmax(-1)
    out = torch.einsum("bhts,bshe->bthe", w, v).reshape(B, T, d)
    return out, w.mean(1)
