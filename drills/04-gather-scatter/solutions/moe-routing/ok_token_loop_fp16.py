import torch


def moe_forward(x, router_logits, expert_weights, k):
    B, T, d = x.shape
    out = torch.zeros_like(x)
    for b in range(B):
        for t in range(T):
            v, i = torch.topk(router_logits[b, t], k)
            g = torch.softmax(v, 0)
            acc = x.new_zeros(d)
            for j in range(k):
                acc = acc + g[j] * (x[b, t] @ expert_weights[i[j]])
            out[b, t] = acc
    return out
