# variant: mask=additive
# Hugging Face's extended attention mask: 0 on real keys, finfo.min on padding, added to the scores.
import torch


def multi_head_attention(Q, K, V, pad_mask, H: int):
    B, T, d = Q.shape
    S, dh = K.shape[1], d // H
    q = Q.view(B, T, H, dh)
    k = K.view(B, S, H, dh)
    v = V.view(B, S, H, dh)
    scores = torch.einsum("bthd,bshd->bhts", q, k) / dh ** 0.5
    scores = scores + pad_mask[:, None, None, :]  # (B, 1, 1, S) broadcast over heads and queries
    w = scores.softmax(-1)
    return torch.einsum("bhts,bshd->bthd", w, v).reshape(B, T, d)
