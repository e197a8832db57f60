# trap: group-major
def group_advantages(rewards, P, G, eps=1e-6):
    r = rewards.reshape(G, P).T          # (P, G) but built from the wrong layout
    adv = (r - r.mean(1, keepdim=True)) / (r.std(1, unbiased=False, keepdim=True) + eps)
    return adv.T.reshape(-1)
