# trap: log-of-softmax  (the probability of each realised token gathered first, then its log: -inf once it underflows)
import torch


def token_logprobs(logits, ids):
    probs = torch.softmax(logits.float(), dim=-1)
    picked = probs.gather(-1, ids.unsqueeze(-1)).squeeze(-1)
    return torch.log(picked).to(logits.dtype)
