# trap: none
# Always takes the residual, also when every draft passed: at position K it subtracts q's last row.
import torch


def speculative_accept(draft_tokens, q, p, u):
    B, K, V = q.shape
    p_x = p[:, :K].gather(-1, draft_tokens[..., None]).squeeze(-1)
    q_x = q.gather(-1, draft_tokens[..., None]).squeeze(-1)
    n = (u <= p_x / q_x).long().cumprod(-1).sum(-1)
    rows = torch.arange(B, device=p.device)
    res = (p[rows, n] - q[rows, n.clamp(max=K - 1)]).clamp(min=0)
    return n, res / res.sum(-1, keepdim=True)
