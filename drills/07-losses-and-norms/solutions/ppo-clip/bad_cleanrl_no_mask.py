# trap: mask-ignored
# CleanRL-style: every position of the rollout is an action, so .mean() over everything
import torch


def ppo_clip_loss(logp, old_logp, adv, mask, eps_low=0.2, eps_high=0.2):
    logratio = logp.float() - old_logp.float()
    ratio = logratio.exp()
    pg_loss1 = -adv.float() * ratio
    pg_loss2 = -adv.float() * torch.clamp(ratio, 1 - eps_low, 1 + eps_high)
    return torch.max(pg_loss1, pg_loss2).mean()
