import torch
def moe_forward(x, router_logits, expert_weights, k):
    B, T, d = x.shape
    E = router_logits.shape[-1]
    val, idx = torch.topk(router_logits, k, dim=-1, sorted=False)
    gate = val.softmax(-1)
    fx = x.reshape(-1, d); fi = idx.reshape(-1, k); fg = gate.reshape(-1, k)
    out = torch.zeros_like(fx)
    for e in range(E):
        r, s = (fi == e).nonzero(as_tuple=True)
        if r.numel() == 0:
            continue
        out.index_add_(0, r, (fx[r] @ expert_weights[e]) * fg[r, s].unsqueeze(-1))
    return out.view(B, T, d)
