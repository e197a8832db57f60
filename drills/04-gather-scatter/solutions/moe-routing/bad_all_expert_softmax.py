# trap: softmax-over-all-experts
import torch


def moe_forward(x, router_logits, expert_weights, k):
    B, T, d = x.shape
    probs = router_logits.float().softmax(-1)
    g, idx = probs.topk(k, -1)
    flat, gi, gg = x.reshape(-1, d).float(), idx.reshape(-1, k), g.reshape(-1, k)
    out = torch.zeros_like(flat)
    for e in range(expert_weights.shape[0]):
        r, s = torch.where(gi == e)
        out.index_add_(0, r, flat[r] @ expert_weights[e].float() * gg[r, s, None])
    return out.reshape(B, T, d).to(x.dtype)
