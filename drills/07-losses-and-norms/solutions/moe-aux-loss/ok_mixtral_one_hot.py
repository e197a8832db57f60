import torch
import torch.nn.functional as F


def load_balancing_loss(router_logits, k):
    # transformers' Mixtral load_balancing_loss_func, for one layer and no attention mask
    num_experts = router_logits.shape[-1]
    routing_weights = F.softmax(router_logits.float(), dim=-1)
    _, selected_experts = torch.topk(routing_weights, k, dim=-1)
    expert_mask = F.one_hot(selected_experts, num_experts)  # (N, k, E)
    tokens_per_expert = torch.mean(expert_mask.float(), dim=0)  # (k, E)
    router_prob_per_expert = torch.mean(routing_weights, dim=0)  # (E,)
    overall_loss = torch.sum(tokens_per_expert * router_prob_per_expert.unsqueeze(0))
    return overall_loss * num_experts
