# variant: scale=batch
# TRL's scale_rewards="batch": centre within each prompt's group, then divide by one std for the whole batch.
import torch


def group_advantages(rewards, P, G, eps=1e-6):
    r = rewards.float()
    group_mean = r.view(P, G).mean(dim=1).repeat_interleave(G)  # (P*G,)
    batch_std = r.std(unbiased=False)  # one number for all P*G rewards
    return ((r - group_mean) / (batch_std + eps)).to(rewards.dtype)
