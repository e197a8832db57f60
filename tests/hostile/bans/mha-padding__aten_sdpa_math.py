# kernel: aten::_scaled_dot_product_attention_math
import torch


def multi_head_attention(Q, K, V, pad_mask, H: int):
    B, T, d = Q.shape
    q, k, v = (x.reshape(B, x.shape[1], H, d // H).transpose(1, 2) for x in (Q, K, V))
    keep = pad_mask.bool()[:, None, None, :]
    mask = torch.zeros(keep.shape, dtype=q.dtype).masked_fill(~keep, float("-inf"))
    out = torch.ops.aten._scaled_dot_product_attention_math(q, k, v, mask)[0]
    return out.transpose(1, 2).reshape(B, T, d)
