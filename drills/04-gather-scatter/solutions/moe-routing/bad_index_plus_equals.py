# trap: dropped-repeated-rows
import torch


def moe_forward(x, router_logits, expert_weights, k):
    B, T, d = x.shape
    top_val, top_idx = router_logits.topk(k, -1)
    gate = top_val.softmax(-1).reshape(-1)                     # (BT*k,)
    rows = torch.arange(B * T).repeat_interleave(k)           # (BT*k,)
    flat = x.reshape(B * T, d)
    y = torch.einsum("nd,ndf->nf", flat[rows], expert_weights[top_idx.reshape(-1)])
    out = torch.zeros_like(flat)
    out[rows] += y * gate[:, None]
    return out.reshape(B, T, d)
