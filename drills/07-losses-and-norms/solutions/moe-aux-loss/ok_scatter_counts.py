import torch


def load_balancing_loss(router_logits, k):
    N, E = router_logits.shape
    probs = router_logits.float().softmax(-1)
    idx = router_logits.topk(k, dim=-1).indices.reshape(-1)
    counts = torch.zeros(E, device=router_logits.device).scatter_add_(0, idx, torch.ones_like(idx, dtype=torch.float32))
    return E * (counts / N * probs.mean(0)).sum()
