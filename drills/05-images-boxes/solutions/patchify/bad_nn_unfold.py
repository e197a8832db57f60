import torch.nn as nn


def patchify(images, P):
    return nn.Unfold(P, stride=P)(images).transpose(1, 2)
