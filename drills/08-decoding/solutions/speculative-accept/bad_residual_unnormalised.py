# trap: no-renorm
# "torch.multinomial normalises anyway": the residual is returned as it is.
import torch
import torch.nn.functional as F


def speculative_accept(draft_tokens, q, p, u):
    K = q.shape[1]
    p_x = p[:, :K].gather(-1, draft_tokens[..., None])[..., 0]
    q_x = q.gather(-1, draft_tokens[..., None])[..., 0]
    n = (u <= p_x / q_x).long().cumprod(-1).sum(-1)
    diff = (p - F.pad(q, (0, 0, 0, 1))).clamp_min(0)
    return n, diff[torch.arange(len(n), device=n.device), n]
