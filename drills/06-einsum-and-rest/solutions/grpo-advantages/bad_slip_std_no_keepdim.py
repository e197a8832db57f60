# trap: none
# Group statistics without keepdim: (P,) against (P, G) lines P up with G.
def group_advantages(rewards, P, G, eps=1e-6):
    r = rewards.view(P, G)
    adv = (r - r.mean(1)) / (r.std(1, unbiased=False) + eps)
    return adv.reshape(-1)
