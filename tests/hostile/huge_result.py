import torch


def add_one(x):
    return torch.zeros(1).expand(100_000_000)  # 400 MB, without touching the memory
