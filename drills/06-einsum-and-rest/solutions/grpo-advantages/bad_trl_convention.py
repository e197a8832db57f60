# trap: unbiased-std
# TRL's GRPOTrainer as it is written there (an unbiased std), under this drill's contract, which
# asks for the population std: a convention, named as such.
import torch


def group_advantages(rewards, P, G, eps=1e-6):
    grouped = rewards.view(-1, G)
    mean = grouped.mean(dim=1).repeat_interleave(G, dim=0)
    std = grouped.std(dim=1).repeat_interleave(G, dim=0)
    return (rewards - mean) / (std + eps)
