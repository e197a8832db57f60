import torch


def token_logprobs(logits, ids):
    logp = torch.log_softmax(logits, dim=-1)
    return logp[..., ids]
