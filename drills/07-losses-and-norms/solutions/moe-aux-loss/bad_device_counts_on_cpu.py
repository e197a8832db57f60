# device: the per-expert counts are made on the CPU (torch.zeros(E) without device=), so scatter_add_ mixes devices
import torch


def load_balancing_loss(router_logits, k):
    N, E = router_logits.shape
    probs = router_logits.float().softmax(-1)
    idx = router_logits.topk(k, dim=-1).indices.reshape(-1)
    counts = torch.zeros(E).scatter_add_(0, idx, torch.ones(idx.shape))
    return E * (counts / N * probs.mean(0)).sum()
