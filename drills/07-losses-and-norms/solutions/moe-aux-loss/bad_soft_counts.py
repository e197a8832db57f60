# trap: soft-f
import torch


def load_balancing_loss(router_logits, k):
    E = router_logits.shape[-1]
    probs = torch.softmax(router_logits.float(), dim=-1)
    # "fraction of tokens routed to e" read as the average routing probability
    density = probs.mean(0)
    density_proxy = probs.mean(0)
    return E * torch.sum(density * density_proxy)
