# trap: every-accepted
import torch


def speculative_accept(draft_tokens, q, p, u):
    B, K, V = q.shape
    p_x = p[:, :K].gather(-1, draft_tokens[..., None]).squeeze(-1)
    q_x = q.gather(-1, draft_tokens[..., None]).squeeze(-1)
    n = (u <= p_x / q_x).sum(dim=-1)
    rows = torch.arange(B, device=p.device)
    p_n = p[rows, n]
    res = (p_n - q[rows, n.clamp(max=K - 1)]).clamp(min=0)
    return n, torch.where((n == K)[:, None], p_n, res / res.sum(-1, keepdim=True))
