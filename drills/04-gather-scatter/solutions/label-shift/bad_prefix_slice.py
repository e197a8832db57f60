# trap: prefix-off-by-one
import torch.nn.functional as F


def causal_lm_loss(logits, ids, n_prefix=0):
    text = logits[:, n_prefix:]            # drop the prefix first...
    pred, tgt = text[:, :-1], ids[:, 1:]   # ...then the usual shift
    return F.cross_entropy(pred.flatten(0, 1).float(), tgt.flatten())
