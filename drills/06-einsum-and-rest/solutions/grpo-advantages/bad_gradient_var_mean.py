# trap: none
# Right in every case, but it cannot train: its backward is NaN where the forward hid a 0/0 or a sqrt at zero.
import torch


def group_advantages(rewards: torch.Tensor, P: int, G: int, eps: float = 1e-6) -> torch.Tensor:
    r = rewards.float().unflatten(0, (P, G))
    var, mean = torch.var_mean(r, dim=1, unbiased=False, keepdim=True)
    return ((r - mean) / (var.sqrt() + eps)).reshape(P * G).to(rewards.dtype)
