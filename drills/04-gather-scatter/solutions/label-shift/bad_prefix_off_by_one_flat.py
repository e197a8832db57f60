# trap: prefix-off-by-one  (the text-only shift after the prefix, written with flat views)
import torch


def causal_lm_loss(logits, ids, n_prefix=0):
    V = logits.shape[-1]
    pred = logits[:, n_prefix:-1].reshape(-1, V)
    labels = ids[:, 1:].reshape(-1)
    logp = torch.log_softmax(pred.float(), dim=-1)
    return -logp[torch.arange(labels.numel()), labels].mean()
