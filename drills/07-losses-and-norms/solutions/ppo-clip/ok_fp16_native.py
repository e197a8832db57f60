import torch


def ppo_clip_loss(logp, old_logp, adv, mask, eps_low=0.2, eps_high=0.2):
    m = mask.to(logp.dtype)
    log_ratio = (logp - old_logp).masked_fill(m == 0, 0)
    ratio = log_ratio.exp()
    loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - eps_low, 1 + eps_high))
    return (loss * m).float().sum() / m.float().sum()
