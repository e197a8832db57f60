# variant: shift=causal
# A causal LM's logits: position t predicts token t + 1, so drop the last logit and the first id.
import torch


def token_logprobs(logits, ids):
    pred = logits[:, :-1].float()  # (B, T - 1, V)
    target = ids[:, 1:]  # (B, T - 1)
    logp = pred - pred.logsumexp(dim=-1, keepdim=True)
    return logp.gather(-1, target.unsqueeze(-1)).squeeze(-1).to(logits.dtype)
