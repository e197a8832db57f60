# trap: all-positions
import torch


def ppo_clip_loss(logp, old_logp, adv, mask, eps_low=0.2, eps_high=0.2):
    m = mask.float()
    ratio = torch.exp((logp.float() - old_logp.float()) * m)
    surr = torch.max(-adv.float() * ratio, -adv.float() * ratio.clamp(1 - eps_low, 1 + eps_high))
    return (surr * m).mean()
