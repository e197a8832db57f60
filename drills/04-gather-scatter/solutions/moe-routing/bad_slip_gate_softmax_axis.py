# trap: none
# The gates' softmax runs over dim 0 (the tokens) instead of over the k kept experts.
import torch


def moe_forward(x, router_logits, expert_weights, k):
    B, T, d = x.shape
    flat = x.reshape(-1, d)
    vals, idx = router_logits.reshape(-1, router_logits.shape[-1]).topk(k, dim=-1)
    gates = torch.softmax(vals.float(), dim=0).to(x.dtype)  # (BT, k)
    out = torch.zeros_like(flat)
    for e in range(expert_weights.shape[0]):
        rows, slot = (idx == e).nonzero(as_tuple=True)
        if rows.numel():
            out.index_add_(0, rows, (flat[rows] @ expert_weights[e]) * gates[rows, slot, None])
    return out.reshape(B, T, d)
