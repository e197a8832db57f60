# trap: top1-only
# Switch Transformer's top-1 formula reused for a top-k router
import torch
import torch.nn.functional as F


def load_balancing_loss(router_logits, k):
    E = router_logits.shape[-1]
    probs = F.softmax(router_logits.float(), dim=-1)
    expert_index = torch.argmax(probs, dim=-1)
    density = F.one_hot(expert_index, E).float().mean(0)
    return E * torch.sum(density * probs.mean(0))
