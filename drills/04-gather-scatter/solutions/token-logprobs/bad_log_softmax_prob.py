# trap: log-of-softmax
import torch


def token_logprobs(logits, ids):
    probs = logits.float().softmax(-1)
    picked = probs.gather(-1, ids[..., None]).squeeze(-1)
    return torch.log(picked).to(logits.dtype)
