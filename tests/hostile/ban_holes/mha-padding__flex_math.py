# banned: called torch.nn.functional.scaled_dot_product_attention (as torch._higher_order_ops.flex_attention.math_attention)
# needs: torch._higher_order_ops.flex_attention.math_attention
import torch
from torch._higher_order_ops.flex_attention import math_attention


def multi_head_attention(Q, K, V, pad_mask, H: int):
    B, T, d = Q.shape
    q, k, v = (x.reshape(B, x.shape[1], H, d // H).transpose(1, 2) for x in (Q, K, V))
    keep = pad_mask.bool()

    def score_mod(score, b, h, qi, ki):
        return torch.where(keep[b, ki], score, -float("inf"))

    def mask_mod(b, h, qi, ki):
        return qi >= 0

    out = math_attention(q, k, v, score_mod, (mask_mod,), (d // H) ** -0.5, {})[0]
    return out.transpose(1, 2).reshape(B, T, d).to(Q.dtype)
