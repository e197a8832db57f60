import torch


def multi_head_attention(Q, K, V, pad_mask, H: int):
    B, T, d = Q.shape
    S = K.shape[1]
    dh = d // H
    q = Q.view(B, T, H, dh)
    k = K.view(B, S, H, dh)
    v = V.view(B, S, H, dh)
    scores = torch.einsum("bthd,bshd->bhts", q, k) / dh ** 0.5
    scores = scores.masked_fill(pad_mask[:, None, None, :] == 0, float("-inf"))
    w = scores.softmax(-1)
    return torch.einsum("bhts,bshd->bthd", w, v).reshape(B, T, d)
