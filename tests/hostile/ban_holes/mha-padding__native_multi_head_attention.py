# banned: called torch.nn.functional.scaled_dot_product_attention (as aten._native_multi_head_attention)
# needs: torch.ops.aten._native_multi_head_attention
import torch


def multi_head_attention(Q, K, V, pad_mask, H: int):
    # nn.MultiheadAttention's fused kernel, with identity projections; it wants one length for
    # queries and keys, so both are padded to the longer one (extra keys masked, extra queries dropped)
    B, T, d = Q.shape
    S = K.shape[1]
    L = max(T, S)
    q = torch.cat([Q, Q.new_zeros(B, L - T, d)], 1)
    k = torch.cat([K, K.new_zeros(B, L - S, d)], 1)
    v = torch.cat([V, V.new_zeros(B, L - S, d)], 1)
    pad = torch.cat([~pad_mask.bool(), torch.ones(B, L - S, dtype=torch.bool)], 1)
    eye = torch.eye(d, dtype=Q.dtype)
    out, _ = torch.ops.aten._native_multi_head_attention(
        q, k, v, d, H, torch.cat([eye, eye, eye]), torch.zeros(3 * d, dtype=Q.dtype), eye,
        torch.zeros(d, dtype=Q.dtype), pad, False, True, 1)
    return out[:, :T]
