# trap: weights-transposed
import torch
import torch.nn.functional as F


def moe_forward(x, router_logits, expert_weights, k):
    v, i = router_logits.topk(k, dim=-1)
    g = v.softmax(-1)
    out = torch.zeros_like(x)
    for e in range(expert_weights.shape[0]):
        w = ((i == e) * g).sum(-1, keepdim=True)     # (B, T, 1), zero where e was not picked
        out = out + w * F.linear(x, expert_weights[e])
    return out
