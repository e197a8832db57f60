import math
import torch


def cross_attention(Q, K, V, enc_pad_mask, H: int):
    B, T, d = Q.shape
    dh = d // H
    keep = (enc_pad_mask != 0)[:, None, :]           # (B, 1, S)
    outs, ws = [], []
    for h in range(H):
        sl = slice(h * dh, (h + 1) * dh)
        s = Q[..., sl] @ K[..., sl].transpose(1, 2) / math.sqrt(dh)   # (B, T, S)
        s = torch.where(keep, s, torch.full_like(s, -1e4))
        w = torch.softmax(s, dim=-1)
        ws.append(w)
        outs.append(w @ V[..., sl])
    return torch.cat(outs, dim=-1), torch.stack(ws, dim=1)
