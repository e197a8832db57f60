# trap: mean-reduction
# variant: reduction=sum
# The Hugging Face mean from memory, where the question asked for the sum.
import torch.nn.functional as F


def causal_lm_loss(logits, ids, n_prefix=0):
    T = ids.shape[1]
    if n_prefix == 0:
        pred, target = logits[:, :-1], ids[:, 1:]
    else:
        pred, target = logits[:, n_prefix - 1: n_prefix - 1 + T], ids
    return F.cross_entropy(pred.float().flatten(0, 1), target.flatten())
