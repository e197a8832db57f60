import torch


def token_logprobs(logits, ids):
    logp = logits - logits.logsumexp(dim=-1, keepdim=True)
    return torch.gather(logp, 2, ids.unsqueeze(-1)).squeeze(-1)
