# trap: shift-backwards
# variant: shift=causal
import torch.nn.functional as F


def token_logprobs(logits, ids):
    B, T, V = logits.shape
    nll = F.cross_entropy(logits[:, 1:].reshape(-1, V).float(), ids[:, :-1].reshape(-1), reduction="none")
    return -nll.view(B, T - 1).to(logits.dtype)
