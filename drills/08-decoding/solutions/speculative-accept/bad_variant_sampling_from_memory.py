# trap: sample-rule
# variant: mode=greedy
# The rejection-sampling recipe where the variant verifies greedily.
import torch


def speculative_accept(draft_tokens, q, p, u):
    B, K, V = q.shape
    idx = draft_tokens.unsqueeze(-1)
    ok = (u <= torch.gather(p[:, :K], 2, idx).squeeze(-1) / torch.gather(q, 2, idx).squeeze(-1)).long()
    n = ok.cumprod(dim=1).sum(dim=1)
    rows = torch.arange(B, device=p.device)
    res = torch.clamp(p[rows, n] - q[rows, n.clamp(max=K - 1)], min=0)
    return n, torch.where(n.unsqueeze(1) == K, p[rows, n], res / res.sum(dim=1, keepdim=True))
