# trap: clip-only
import torch


def ppo_clip_loss(logp, old_logp, adv, mask, eps_low=0.2, eps_high=0.2):
    keep = mask != 0
    ratio = (logp[keep].float() - old_logp[keep].float()).exp()
    clipped_ratio = ratio.clamp(1 - eps_low, 1 + eps_high)
    return -(clipped_ratio * adv[keep].float()).mean()
