import torch


def ppo_clip_loss(logp, old_logp, adv, mask, eps_low=0.2, eps_high=0.2):
    # boolean-index the response tokens first: nothing off the mask is ever exponentiated
    keep = mask != 0
    lp, olp, a = logp[keep].float(), old_logp[keep].float(), adv[keep].float()
    r = (lp - olp).exp()
    surr1 = r * a
    surr2 = r.clamp(1 - eps_low, 1 + eps_high) * a
    return -torch.min(surr1, surr2).mean()
