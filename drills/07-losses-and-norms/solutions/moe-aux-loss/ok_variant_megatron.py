# variant: norm=megatron
import torch


def load_balancing_loss(router_logits, k):
    # Megatron-LM's switch_load_balancing_loss_func with coeff 1: sums over tokens, scaled by E / (k * T^2)
    num_tokens, num_experts = router_logits.shape
    probs = torch.softmax(router_logits.float(), dim=-1)
    routing_map = torch.zeros_like(probs).scatter(1, probs.topk(k, dim=-1).indices, 1.0)
    tokens_per_expert = routing_map.sum(0)
    aggregated_probs_per_expert = probs.sum(0)
    scale = num_experts / (k * num_tokens * num_tokens)
    return torch.sum(aggregated_probs_per_expert * tokens_per_expert) * scale
