# trap: none
# The shift is right, but reduction="sum" returns the total, not the mean.
import torch.nn.functional as F


def causal_lm_loss(logits, ids, n_prefix=0):
    T = ids.shape[1]
    if n_prefix == 0:
        pred, target = logits[:, :-1], ids[:, 1:]
    else:
        pred, target = logits[:, n_prefix - 1: n_prefix - 1 + T], ids
    return F.cross_entropy(pred.float().flatten(0, 1), target.flatten(), reduction="sum")
