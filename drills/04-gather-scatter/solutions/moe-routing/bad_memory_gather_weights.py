# trap: none
# Right on every case, but its peak memory grows faster than the reference's at production sizes (drill check says how)
import torch
def moe_forward(x, router_logits, expert_weights, k):
    v, i = router_logits.topk(k, dim=-1)
    g = torch.softmax(v.float(), -1)
    W = expert_weights.float()[i]                          # (B, T, k, d, d)
    y = torch.einsum("btd,btkdf->btkf", x.float(), W)     # (B, T, k, d)
    return (y * g[..., None]).sum(2).to(x.dtype)
