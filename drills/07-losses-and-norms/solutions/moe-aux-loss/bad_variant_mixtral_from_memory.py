# trap: f-sums-to-k
# variant: norm=megatron
import torch
import torch.nn.functional as F


def load_balancing_loss(router_logits, k):
    E = router_logits.shape[-1]
    routing_weights = F.softmax(router_logits.float(), dim=-1)
    expert_mask = F.one_hot(routing_weights.topk(k, dim=-1).indices, E).float()
    return E * torch.sum(expert_mask.mean(0) * routing_weights.mean(0).unsqueeze(0))
