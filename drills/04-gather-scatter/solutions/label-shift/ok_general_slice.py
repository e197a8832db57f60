import torch.nn.functional as F


def causal_lm_loss(logits, ids, n_prefix=0):
    B, T = ids.shape
    V = logits.shape[-1]
    if n_prefix == 0:
        pred, tgt = logits[:, : T - 1], ids[:, 1:]
    else:
        pred, tgt = logits[:, n_prefix - 1 : n_prefix - 1 + T], ids
    return F.cross_entropy(pred.reshape(-1, V).float(), tgt.reshape(-1))
