# variant: mode=greedy
# vLLM's greedy path: a draft survives while it is the target's argmax; the next token is the argmax too.
import torch


def speculative_accept(draft_tokens, q, p, u):
    K = q.shape[1]
    target = p.argmax(dim=-1)  # (B, K+1)
    match = (draft_tokens == target[:, :K]).int()
    n = match.cumprod(dim=-1).sum(dim=-1).long()
    nxt = target.gather(1, n[:, None])
    return n, torch.zeros_like(p[:, 0]).scatter_(1, nxt, 1)
