# trap: no-factor-e
import torch
import torch.nn.functional as F


def load_balancing_loss(router_logits, k):
    routing_weights = F.softmax(router_logits.float(), dim=-1)
    selected = routing_weights.topk(k, dim=-1).indices
    expert_mask = F.one_hot(selected, router_logits.shape[-1]).float()  # (N, k, E)
    return torch.sum(expert_mask.mean(0) * routing_weights.mean(0))
