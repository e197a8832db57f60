# trap: unbiased-std  (torch's default std, unbiased, computed in the input's dtype with view)
def group_advantages(rewards, P, G, eps=1e-6):
    r = rewards.view(P, G)
    mean = r.mean(dim=-1, keepdim=True)
    std = r.std(dim=-1, keepdim=True)
    return ((r - mean) / (std + eps)).flatten()
