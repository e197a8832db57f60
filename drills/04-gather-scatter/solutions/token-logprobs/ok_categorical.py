import torch
def token_logprobs(logits, ids):
    return torch.distributions.Categorical(logits=logits).log_prob(ids)
