# banned: called torch.einsum,
import torch


@torch.jit.script
def scores_without_einsum(q, k):
    return torch.einsum("bthd,bshd->bhts", [q, k])
