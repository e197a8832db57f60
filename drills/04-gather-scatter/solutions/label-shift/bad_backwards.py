# trap: shift-backwards
import torch.nn.functional as F


def causal_lm_loss(logits, ids, n_prefix=0):
    T = ids.shape[1]
    pred = logits[:, n_prefix + 1:]
    return F.cross_entropy(pred.reshape(-1, pred.shape[-1]).float(), ids[:, : T - 1].reshape(-1))
