# banned: called torch.nn.attention.flex_attention.flex_attention
# needs: torch.nn.attention.flex_attention.flex_attention
import torch
from torch.nn.attention.flex_attention import flex_attention


def multi_head_attention(Q, K, V, pad_mask, H: int):
    B, T, d = Q.shape
    q, k, v = (x.reshape(B, x.shape[1], H, d // H).transpose(1, 2) for x in (Q, K, V))
    keep = pad_mask.bool()

    def score_mod(score, b, h, qi, ki):
        return torch.where(keep[b, ki], score, -float("inf"))

    out = flex_attention(q, k, v, score_mod=score_mod)
    return out.transpose(1, 2).reshape(B, T, d)
