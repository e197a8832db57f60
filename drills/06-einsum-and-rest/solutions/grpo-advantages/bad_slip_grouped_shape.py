# trap: none
# Right numbers, but returned as the (P, G) grid instead of the flat (P*G,) vector.
def group_advantages(rewards, P, G, eps=1e-6):
    r = rewards.view(P, G)
    mean = r.mean(1, keepdim=True)
    std = r.std(1, keepdim=True, unbiased=False)
    return (r - mean) / (std + eps)
