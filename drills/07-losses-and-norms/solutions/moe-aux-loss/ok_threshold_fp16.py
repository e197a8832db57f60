import torch


def load_balancing_loss(router_logits, k):
    # an expert is picked when its logit is at least the token's k-th largest (no ties there)
    E = router_logits.shape[-1]
    kth = router_logits.topk(k, dim=-1).values[:, -1:]  # (N, 1)
    f = (router_logits >= kth).to(router_logits.dtype).mean(0)
    P = torch.softmax(router_logits, dim=-1).mean(0)
    return E * (f * P).sum()
