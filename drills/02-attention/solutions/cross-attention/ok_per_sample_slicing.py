import math
import torch


def cross_attention(Q, K, V, enc_pad_mask, H):
    # attend only over each sample's real keys; padded keys get weight 0
    B, T, d = Q.shape
    S = K.shape[1]
    dh = d // H
    out = torch.zeros_like(Q)
    weights = torch.zeros(B, H, T, S, dtype=Q.dtype)
    for b in range(B):
        real = enc_pad_mask[b].bool()
        q = Q[b].view(T, H, dh).transpose(0, 1)            # (H, T, dh)
        k = K[b][real].view(-1, H, dh).transpose(0, 1)     # (H, n, dh)
        v = V[b][real].view(-1, H, dh).transpose(0, 1)
        w = torch.softmax(q.float() @ k.float().transpose(1, 2) / math.sqrt(dh), dim=-1)
        weights[b][:, :, real] = w.to(Q.dtype)
        out[b] = (w @ v.float()).transpose(0, 1).reshape(T, d).to(Q.dtype)
    return out, weights
