import torch


def speculative_accept(draft_tokens, q, p, u):
    B, K, V = q.shape
    idx = draft_tokens.unsqueeze(-1)
    p_x = torch.gather(p[:, :K], 2, idx).squeeze(-1)
    q_x = torch.gather(q, 2, idx).squeeze(-1)
    accepted = (u <= p_x / q_x).long()
    n = accepted.cumprod(dim=1).sum(dim=1)
    rows = torch.arange(B, device=p.device)
    p_n = p[rows, n]
    q_n = q[rows, n.clamp(max=K - 1)]
    res = torch.clamp(p_n - q_n, min=0)
    res = res / res.sum(dim=1, keepdim=True)
    next_probs = torch.where(n.unsqueeze(1) == K, p_n, res)
    return n, next_probs
