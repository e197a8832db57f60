import torch


def mse(pred, target):
    t = target.squeeze(1)  # (N,)
    return ((pred.float() - t.float()) ** 2).mean()  # () in float32, fine for a loss
