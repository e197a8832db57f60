# trap: none
import torch


def load_balancing_loss(router_logits, k):
    N, E = router_logits.shape
    probs = router_logits.float().softmax(0)  # over the tokens, not the experts
    idx = router_logits.topk(k, dim=-1).indices
    f = torch.zeros_like(probs).scatter_(1, idx, 1.0).mean(0)
    return E * (f * probs.mean(0)).sum()
