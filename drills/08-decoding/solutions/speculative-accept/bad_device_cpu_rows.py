# device: the row index for the advanced indexing is made on the CPU and added to a GPU tensor
import torch


def speculative_accept(draft_tokens, q, p, u):
    B, K, V = q.shape
    p_x = p[:, :K].gather(-1, draft_tokens[..., None]).squeeze(-1)
    q_x = q.gather(-1, draft_tokens[..., None]).squeeze(-1)
    n = (u <= p_x / q_x).long().cumprod(-1).sum(-1)
    flat = torch.arange(B) * (K + 1) + n  # CPU arange + GPU n
    p_n = p.reshape(B * (K + 1), V)[flat]
    q_n = q.reshape(B * K, V)[torch.arange(B, device=n.device) * K + n.clamp(max=K - 1)]
    res = (p_n - q_n).clamp(min=0)
    return n, torch.where((n == K)[:, None], p_n, res / res.sum(-1, keepdim=True))
