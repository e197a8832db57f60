# trap: none
# Masks by multiplying after the exp: right in float32, NaN in fp16 when a masked log-ratio
# passes 11.1 (exp overflows to inf, and inf * 0 is NaN).
import torch


def ppo_clip_loss(logp, old_logp, adv, mask, eps_low=0.2, eps_high=0.2):
    m = mask.to(logp.dtype)
    ratio = torch.exp(logp - old_logp)
    loss = torch.max(-adv * ratio, -adv * torch.clamp(ratio, 1 - eps_low, 1 + eps_high))
    return (loss * m).sum() / m.sum()
