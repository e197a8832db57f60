# kernel: aten::_scaled_dot_product_flash_attention_for_cpu
import math

import torch


def _additive(keep, q):
    return torch.zeros(keep.shape, dtype=q.dtype).masked_fill(~keep, float("-inf"))


def cross_attention(Q, K, V, enc_pad_mask, H: int):
    B, T, d = Q.shape
    q, k, v = (x.reshape(B, x.shape[1], H, d // H).transpose(1, 2) for x in (Q, K, V))
    keep = enc_pad_mask.bool()[:, None, None, :]
    out = torch._VF._scaled_dot_product_flash_attention_for_cpu(q, k, v, attn_mask=_additive(keep, q))[0]
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(d // H)
    weights = torch.softmax(scores.masked_fill(~keep, float("-inf")), dim=-1)
    return out.transpose(1, 2).reshape(B, T, d), weights
