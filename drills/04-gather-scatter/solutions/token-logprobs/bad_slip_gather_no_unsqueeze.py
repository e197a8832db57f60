# trap: none
# gather needs an index with as many axes as the input: ids (B, T) is passed without [..., None].
import torch


def token_logprobs(logits, ids):
    return torch.log_softmax(logits, dim=-1).gather(-1, ids)
