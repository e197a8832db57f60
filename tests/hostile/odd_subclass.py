import torch


class Hostile(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        raise RuntimeError("you may not look at me")


def add_one(x):
    return (x + 1).as_subclass(Hostile)
