# trap: scale-by-d
import torch


def multi_head_attention(Q, K, V, pad_mask, H: int):
    B, T, d = Q.shape
    S = K.shape[1]
    q = Q.view(B, T, H, d // H)
    k = K.view(B, S, H, d // H)
    v = V.view(B, S, H, d // H)
    scores = torch.einsum("bthd,bshd->bhts", q, k) / d ** 0.5
    scores = scores.masked_fill(pad_mask[:, None, None, :] == 0, float("-inf"))
    return torch.einsum("bhts,bshd->bthd", scores.softmax(-1), v).reshape(B, T, d)
