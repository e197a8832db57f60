# trap: q-over-p
import torch


def speculative_accept(draft_tokens, q, p, u):
    B, K, V = q.shape
    idx = draft_tokens.unsqueeze(-1)
    p_x = torch.gather(p[:, :K], 2, idx).squeeze(-1)
    q_x = torch.gather(q, 2, idx).squeeze(-1)
    accepted = (u <= q_x / p_x).long()
    n = accepted.cumprod(dim=1).sum(dim=1)
    rows = torch.arange(B, device=p.device)
    res = torch.clamp(p[rows, n] - q[rows, n.clamp(max=K - 1)], min=0)
    res = res / res.sum(dim=1, keepdim=True)
    return n, torch.where(n.unsqueeze(1) == K, p[rows, n], res)
