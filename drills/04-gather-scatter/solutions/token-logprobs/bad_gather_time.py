# trap: gather-wrong-axis
import torch


def token_logprobs(logits, ids):
    logp = torch.log_softmax(logits.float(), -1)
    return logp.gather(1, ids.unsqueeze(2)).squeeze(2).to(logits.dtype)
