# trap: unbiased-std
def group_advantages(rewards, P, G, eps=1e-6):
    r = rewards.float().reshape(P, G)
    adv = (r - r.mean(-1, keepdim=True)) / (r.std(-1, keepdim=True) + eps)
    return adv.flatten().to(rewards.dtype)
