# trap: optimistic-min
import torch


def ppo_clip_loss(logp, old_logp, adv, mask, eps_low=0.2, eps_high=0.2):
    keep = mask.bool()
    ratio = torch.exp(torch.where(keep, logp.float() - old_logp.float(), 0.0))
    pg_losses = -adv.float() * ratio
    pg_losses2 = -adv.float() * torch.clamp(ratio, 1.0 - eps_low, 1.0 + eps_high)
    pg_loss = torch.min(pg_losses, pg_losses2)  # "PPO takes the min"
    return (pg_loss * keep).sum() / keep.sum()
