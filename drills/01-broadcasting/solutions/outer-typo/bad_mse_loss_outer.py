# trap: outer-broadcast
import torch.nn.functional as F


def mse(pred, target):
    return F.mse_loss(pred.expand(target.shape[0], -1), target.expand(-1, target.shape[0]))
