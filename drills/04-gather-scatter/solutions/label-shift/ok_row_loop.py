import torch
def causal_lm_loss(logits, ids, n_prefix=0):
    B, T = ids.shape
    lp = torch.log_softmax(logits.double(), -1)
    losses = []
    for b in range(B):
        row = []
        for t in range(T):
            pos = n_prefix + t - 1
            if pos < 0:
                continue
            row.append(-lp[b, pos, ids[b, t]])
        losses.append(torch.stack(row).mean())
    return torch.stack(losses).mean().float()
