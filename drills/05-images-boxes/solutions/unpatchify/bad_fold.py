import torch.nn.functional as F


def unpatchify(tokens, C, H, W, P):
    return F.fold(tokens.transpose(1, 2), (H, W), P, stride=P)
