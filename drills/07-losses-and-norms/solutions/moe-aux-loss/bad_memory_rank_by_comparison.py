# memory: ranks each expert by comparing every pair of experts, an (N, E, E) table
import torch


def load_balancing_loss(router_logits, k):
    N, E = router_logits.shape
    probs = router_logits.float().softmax(-1)
    beaten_by = (router_logits[:, None, :] > router_logits[:, :, None]).sum(-1)  # (N, E): logits above e
    f = (beaten_by < k).float().mean(0)
    return E * (f * probs.mean(0)).sum()
