# trap: none
# partial: unbiased-std
# TRL's GRPOTrainer copied as it is: the unbiased std (a convention this contract does not follow)
# and its fixed 1e-4 where the question passes eps, which the eps = 0.1 cases show.
import torch


def group_advantages(rewards, P, G, eps=1e-6):
    mean_grouped_rewards = rewards.view(-1, G).mean(dim=1)
    std_grouped_rewards = rewards.view(-1, G).std(dim=1)
    mean_grouped_rewards = mean_grouped_rewards.repeat_interleave(G, dim=0)
    std_grouped_rewards = std_grouped_rewards.repeat_interleave(G, dim=0)
    advantages = (rewards - mean_grouped_rewards) / (std_grouped_rewards + 1e-4)
    return advantages
