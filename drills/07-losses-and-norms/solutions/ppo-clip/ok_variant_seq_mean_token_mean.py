# variant: agg=seq-mean-token-mean
import torch


def ppo_clip_loss(logp, old_logp, adv, mask, eps_low=0.2, eps_high=0.2):
    keep = mask.bool()
    ratio = torch.exp(torch.where(keep, logp.float() - old_logp.float(), 0.0))
    loss_mat = torch.maximum(-adv.float() * ratio, -adv.float() * ratio.clamp(1 - eps_low, 1 + eps_high))
    loss_mat = torch.where(keep, loss_mat, 0.0)
    tokens = keep.sum(-1)
    seq_losses = loss_mat.sum(-1) / tokens.clamp(min=1)
    seq_mask = tokens > 0
    return seq_losses[seq_mask].mean()
