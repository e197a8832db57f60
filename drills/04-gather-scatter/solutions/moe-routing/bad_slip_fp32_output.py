# trap: none
# The output buffer is torch.zeros(...) with the default dtype: fp16 in, fp32 out.
import torch


def moe_forward(x, router_logits, expert_weights, k):
    B, T, d = x.shape
    vals, idx = router_logits.topk(k, dim=-1)
    gates = vals.float().softmax(-1)
    out = torch.zeros(B, T, d)
    for j in range(k):
        e = idx[..., j]  # (B, T)
        y = (x.float().unsqueeze(-2) @ expert_weights.float()[e]).squeeze(-2)  # (B, T, d)
        out += gates[..., j:j + 1] * y
    return out
