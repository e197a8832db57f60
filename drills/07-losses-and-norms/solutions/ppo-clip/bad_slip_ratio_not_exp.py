# trap: none
import torch


def ppo_clip_loss(logp, old_logp, adv, mask, eps_low=0.2, eps_high=0.2):
    keep = mask.bool()
    ratio = torch.where(keep, logp.float() / old_logp.float(), 1.0)  # a ratio of log-probs, not of probs
    loss = torch.maximum(-adv.float() * ratio, -adv.float() * ratio.clamp(1 - eps_low, 1 + eps_high))
    return torch.where(keep, loss, 0.0).sum() / keep.sum()
