import torch
import torch.nn.functional as F


def conv2d_im2col(x, weight, stride: int, padding: int):
    k = weight.shape[-1]
    xp = F.pad(x, [padding] * 4)
    patches = xp.unfold(2, k, stride).unfold(3, k, stride)  # (B, C, Ho, Wo, k, k)
    B, C, Ho, Wo = patches.shape[:4]
    cols = patches.permute(0, 2, 3, 1, 4, 5).reshape(B, Ho * Wo, C * k * k)
    out = cols @ weight.reshape(weight.shape[0], -1).T  # (B, L, C_out)
    return out.transpose(1, 2).reshape(B, -1, Ho, Wo)
