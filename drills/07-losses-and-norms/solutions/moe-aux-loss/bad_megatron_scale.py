# trap: f-over-k
import torch


def load_balancing_loss(router_logits, k):
    N, E = router_logits.shape
    probs = torch.softmax(router_logits.float(), dim=-1)
    routing_map = torch.zeros_like(probs).scatter(1, router_logits.topk(k, dim=-1).indices, 1.0)
    return (probs.sum(0) * routing_map.sum(0)).sum() * E / (k * N * N)
