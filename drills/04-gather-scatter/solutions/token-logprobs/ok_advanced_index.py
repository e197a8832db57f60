import torch
def token_logprobs(logits, ids):
    B, T, V = logits.shape
    lp = logits.float().log_softmax(-1)
    return lp[torch.arange(B)[:, None], torch.arange(T)[None, :], ids].to(logits.dtype)
