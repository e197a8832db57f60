import torch
from torch import nn


def conv2d_im2col(x, weight, stride, padding):
    conv = nn.Conv2d(weight.shape[1], weight.shape[0], weight.shape[2], stride, padding, bias=False)
    with torch.no_grad():
        conv.weight.copy_(weight)
    return conv(x)
