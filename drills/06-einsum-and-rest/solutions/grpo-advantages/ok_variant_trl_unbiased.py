# variant: std=unbiased
# TRL's GRPOTrainer: group rewards by prompt, std with torch's default (n - 1) correction,
# repeat the statistics back over the G completions; the question's eps where TRL writes 1e-4.
import torch


def group_advantages(rewards, P, G, eps=1e-6):
    mean_grouped_rewards = rewards.view(-1, G).mean(dim=1)
    std_grouped_rewards = rewards.view(-1, G).std(dim=1)
    mean_grouped_rewards = mean_grouped_rewards.repeat_interleave(G, dim=0)
    std_grouped_rewards = std_grouped_rewards.repeat_interleave(G, dim=0)
    return (rewards - mean_grouped_rewards) / (std_grouped_rewards + eps)
