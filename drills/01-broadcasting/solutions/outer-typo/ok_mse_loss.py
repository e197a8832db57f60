import torch.nn.functional as F


def mse(pred, target):
    return F.mse_loss(pred, target.view(-1))
