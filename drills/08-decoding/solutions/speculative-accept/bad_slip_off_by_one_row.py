# trap: none
# The residual read one position late, at n + 1 (the position after the rejected draft).
import torch


def speculative_accept(draft_tokens, q, p, u):
    B, K, V = q.shape
    p_x = p[:, :K].gather(-1, draft_tokens[..., None]).squeeze(-1)
    q_x = q.gather(-1, draft_tokens[..., None]).squeeze(-1)
    n = (u <= p_x / q_x).long().cumprod(-1).sum(-1)
    rows = torch.arange(B, device=p.device)
    m = (n + 1).clamp(max=K)
    res = (p[rows, m] - q[rows, m.clamp(max=K - 1)]).clamp(min=0)
    return n, torch.where((n == K)[:, None], p[rows, n], res / res.sum(-1, keepdim=True))
