# trap: eps-swapped
import torch


def ppo_clip_loss(logp, old_logp, adv, mask, eps_low=0.2, eps_high=0.2):
    keep = mask.bool()
    ratio = torch.exp(torch.where(keep, logp.float() - old_logp.float(), 0.0))
    # clip-higher: "the upper clip is the one that is higher", reading eps_high as the distance below 1
    lower, upper = 1 - eps_high, 1 + eps_low
    loss = torch.maximum(-adv.float() * ratio, -adv.float() * ratio.clamp(lower, upper))
    return torch.where(keep, loss, 0.0).sum() / keep.sum()
