# variant: scale=none
# Dr. GRPO: subtract each prompt's mean reward and stop there (no division by the group's std).
import torch


def group_advantages(rewards: torch.Tensor, P: int, G: int, eps: float = 1e-6) -> torch.Tensor:
    grouped = rewards.float().view(P, G)
    centred = grouped - grouped.mean(dim=-1, keepdim=True)
    return centred.flatten().to(rewards.dtype)
