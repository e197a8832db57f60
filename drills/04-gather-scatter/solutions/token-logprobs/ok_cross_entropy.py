import torch.nn.functional as F


def token_logprobs(logits, ids):
    B, T, V = logits.shape
    nll = F.cross_entropy(logits.reshape(-1, V), ids.reshape(-1), reduction="none")
    return -nll.view(B, T)
