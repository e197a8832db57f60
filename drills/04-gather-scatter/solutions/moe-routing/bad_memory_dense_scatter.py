# trap: none
# Right on every case, but its peak memory grows faster than the reference's at production sizes (drill check says how)
import torch


def moe_forward(x, router_logits, expert_weights, k):
    # every expert on every token, then a sparse (B, T, E) gate matrix picks k of them
    vals, idx = router_logits.float().topk(k, dim=-1)
    gates = torch.zeros(router_logits.shape, dtype=torch.float32, device=router_logits.device).scatter(-1, idx, vals.softmax(-1))
    all_out = torch.einsum("btd,edf->btef", x.float(), expert_weights.float())  # (B, T, E, d)
    return (gates[..., None] * all_out).sum(2).to(x.dtype)
