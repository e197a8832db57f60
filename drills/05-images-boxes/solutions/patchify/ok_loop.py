import torch


def patchify(images, P: int):
    B, C, H, W = images.shape
    tokens = []
    for i in range(0, H, P):
        for j in range(0, W, P):
            tokens.append(images[:, :, i:i + P, j:j + P].flatten(1))  # (B, C*P*P)
    return torch.stack(tokens, dim=1)
