import torch


def ppo_clip_loss(logp, old_logp, adv, mask, eps_low=0.2, eps_high=0.2):
    keep = mask.bool()
    log_ratio = torch.where(keep, logp.float() - old_logp.float(), 0.0)
    ratio = torch.exp(log_ratio)
    pg_losses = -adv.float() * ratio
    pg_losses2 = -adv.float() * torch.clamp(ratio, 1.0 - eps_low, 1.0 + eps_high)
    pg_loss = torch.where(keep, torch.maximum(pg_losses, pg_losses2), 0.0)
    return pg_loss.sum() / keep.sum()
