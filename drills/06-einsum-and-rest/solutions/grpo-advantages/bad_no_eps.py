# trap: no-eps
def group_advantages(rewards, P, G, eps=1e-6):
    r = rewards.float().reshape(P, G)
    return ((r - r.mean(1, keepdim=True)) / r.std(1, unbiased=False, keepdim=True)).reshape(-1).to(rewards.dtype)
