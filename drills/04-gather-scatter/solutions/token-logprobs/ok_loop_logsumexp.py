import torch


def token_logprobs(logits, ids):
    B, T, V = logits.shape
    out = torch.empty(B, T, dtype=torch.float32)
    for b in range(B):
        for t in range(T):
            row = logits[b, t].float()
            out[b, t] = row[ids[b, t]] - torch.logsumexp(row, dim=0)
    return out.to(logits.dtype)
