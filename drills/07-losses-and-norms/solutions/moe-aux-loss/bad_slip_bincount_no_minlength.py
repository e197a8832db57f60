# trap: none
import torch


def load_balancing_loss(router_logits, k):
    N, E = router_logits.shape
    probs = router_logits.float().softmax(-1)
    counts = torch.bincount(router_logits.topk(k, dim=-1).indices.flatten())  # no minlength=E
    return E * (counts.float() / N * probs.mean(0)).sum()
