# trap: none
# The leading run counted with a float cumprod and returned as float32: the right count in the wrong dtype.
import torch


def speculative_accept(draft_tokens, q, p, u):
    B, K, V = q.shape
    p_x = p[:, :K].gather(-1, draft_tokens[..., None]).squeeze(-1)
    q_x = q.gather(-1, draft_tokens[..., None]).squeeze(-1)
    n = (u < p_x / q_x).float().cumprod(-1).sum(-1)
    ni = n.long()
    rows = torch.arange(B, device=p.device)
    res = (p[rows, ni] - q[rows, ni.clamp(max=K - 1)]).clamp(min=0)
    return n, torch.where((ni == K)[:, None], p[rows, ni], res / res.sum(-1, keepdim=True))
