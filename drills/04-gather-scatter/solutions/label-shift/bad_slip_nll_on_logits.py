# trap: none
# nll_loss on the raw logits: the log_softmax was forgotten.
import torch.nn.functional as F


def causal_lm_loss(logits, ids, n_prefix=0):
    T = ids.shape[1]
    if n_prefix == 0:
        pred, target = logits[:, :-1], ids[:, 1:]
    else:
        pred, target = logits[:, n_prefix - 1: n_prefix - 1 + T], ids
    V = pred.shape[-1]
    return F.nll_loss(pred.float().reshape(-1, V), target.reshape(-1))
