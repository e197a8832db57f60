import torch


def gqa_attention(q, k, v):
    dt = q.dtype
    q, k, v = q.float(), k.float(), v.float()
    B, H, T, dh = q.shape
    Hk = k.shape[1]
    qg = q.view(B, Hk, H // Hk, T, dh)
    s = torch.einsum("bkgtd,bksd->bkgts", qg, k) / dh ** 0.5
    o = torch.einsum("bkgts,bksd->bkgtd", s.softmax(-1), v)
    return o.reshape(B, H, T, dh).to(dt)
