import torch


def causal_lm_loss(logits, ids, n_prefix=0):
    B, T = ids.shape
    start = max(n_prefix - 1, 0)
    first = 0 if n_prefix > 0 else 1
    pred = logits[:, start : n_prefix + T - 1]           # (B, T or T-1, V)
    tgt = ids[:, first:]                                  # (B, T or T-1)
    logp = pred - torch.logsumexp(pred, dim=-1, keepdim=True)
    nll = -torch.gather(logp, -1, tgt.unsqueeze(-1)).squeeze(-1)
    return nll.mean()
