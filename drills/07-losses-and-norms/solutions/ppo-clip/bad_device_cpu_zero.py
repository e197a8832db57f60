# device: the fill value for the masked positions is a 1-element CPU tensor, not a 0-d one
import torch


def ppo_clip_loss(logp, old_logp, adv, mask, eps_low=0.2, eps_high=0.2):
    keep = mask.bool()
    zero = torch.zeros(1)
    ratio = torch.exp(torch.where(keep, logp.float() - old_logp.float(), zero))
    loss = torch.maximum(-adv.float() * ratio, -adv.float() * ratio.clamp(1 - eps_low, 1 + eps_high))
    return torch.where(keep, loss, zero).sum() / keep.sum()
