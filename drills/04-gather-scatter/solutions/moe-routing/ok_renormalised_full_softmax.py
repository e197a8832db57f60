import torch


def moe_forward(x, router_logits, expert_weights, k):
    B, T, d = x.shape
    probs = torch.softmax(router_logits.float(), dim=-1)
    p, idx = probs.topk(k, dim=-1)
    p = p / p.sum(-1, keepdim=True)   # renormalised: the same as a softmax over the kept logits
    out = torch.zeros(B * T, d)
    fx = x.reshape(-1, d).float()
    fi, fp = idx.reshape(-1, k), p.reshape(-1, k)
    for e in range(expert_weights.shape[0]):
        hit = fi == e                       # (BT, k), at most one True per row
        rows = hit.any(-1).nonzero().flatten()
        if len(rows) == 0:
            continue
        g = (fp * hit).sum(-1)[rows]
        out[rows] += (fx[rows] @ expert_weights[e].float()) * g[:, None]   # rows unique per expert
    return out.view(B, T, d).to(x.dtype)
