# trap: no-residual
# After a rejection the next token is drawn from the target model's distribution at that position.
import torch


def speculative_accept(draft_tokens, q, p, u):
    K = q.shape[1]
    p_x = p[:, :K].gather(-1, draft_tokens[..., None]).squeeze(-1)
    q_x = q.gather(-1, draft_tokens[..., None]).squeeze(-1)
    n = (u <= p_x / q_x).long().cumprod(-1).sum(-1)
    return n, p[torch.arange(p.shape[0], device=p.device), n]
