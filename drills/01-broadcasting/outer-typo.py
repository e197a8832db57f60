"""Reference and traps for outer-typo: (N,) against (N, 1) is an outer operation."""
import torch


def mse(pred, target):
    # pred (N,), target (N, 1) -> target[:, 0] is (N,), so the difference stays (N,)
    return ((pred - target[:, 0]) ** 2).mean()  # ()


# ------------------------------------------------------------------- traps


def trap_outer(pred, target):
    """(N,) - (N, 1) broadcasts to (N, N): every prediction against every target."""
    return ((pred - target) ** 2).mean()


def trap_sum_not_mean(pred, target):
    return ((pred - target[:, 0]) ** 2).sum()


def trap_keeps_axis(pred, target):
    """Lines the shapes up but reduces only the sample axis, leaving a (1,) tensor."""
    return ((pred[:, None] - target) ** 2).mean(0)
