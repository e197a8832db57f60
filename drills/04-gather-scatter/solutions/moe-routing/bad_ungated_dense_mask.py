# trap: ungated-sum  (every expert run densely, the top-k ones summed without their gates)
import torch


def moe_forward(x, router_logits, expert_weights, k):
    work = x.float()
    top = router_logits.float().topk(k, dim=-1).indices  # (B, T, k)
    chosen = torch.zeros_like(router_logits, dtype=torch.float32).scatter(-1, top, 1.0)  # (B, T, E)
    every = torch.einsum("btd,edf->btef", work, expert_weights.float())  # (B, T, E, d)
    return (every * chosen[..., None]).sum(2).to(x.dtype)
