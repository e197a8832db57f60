import torch.nn.functional as F
def causal_lm_loss(logits, ids, n_prefix=0):
    T = ids.shape[1]
    if n_prefix:
        return F.cross_entropy(logits[:, n_prefix - 1:n_prefix - 1 + T].transpose(1, 2), ids)
    return F.cross_entropy(logits[:, :-1].transpose(1, 2), ids[:, 1:])
