# kernel: aten::_scaled_dot_product_flash_attention_for_cpu
import torch


def _additive(keep, q):
    return torch.zeros(keep.shape, dtype=q.dtype).masked_fill(~keep, float("-inf"))


def multi_head_attention(Q, K, V, pad_mask, H: int):
    B, T, d = Q.shape
    q, k, v = (x.reshape(B, x.shape[1], H, d // H).transpose(1, 2) for x in (Q, K, V))
    keep = pad_mask.bool()[:, None, None, :]
    out = torch._VF._scaled_dot_product_flash_attention_for_cpu(q, k, v, attn_mask=_additive(keep, q))[0]
    return out.transpose(1, 2).reshape(B, T, d)
