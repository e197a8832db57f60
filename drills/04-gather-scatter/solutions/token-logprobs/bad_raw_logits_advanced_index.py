# trap: raw-logits  (the realised token's logit picked by advanced indexing, never normalised)
import torch


def token_logprobs(logits, ids):
    B, T, _ = logits.shape
    b = torch.arange(B, device=ids.device)[:, None]
    t = torch.arange(T, device=ids.device)[None, :]
    return logits[b, t, ids]
