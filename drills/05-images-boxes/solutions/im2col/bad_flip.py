# trap: flipped-kernel
import torch
import torch.nn.functional as F


def conv2d_im2col(x, weight, stride, padding):
    B, C, H, W = x.shape
    O, _, k, _ = weight.shape
    Ho = (H + 2 * padding - k) // stride + 1
    Wo = (W + 2 * padding - k) // stride + 1
    cols = F.unfold(x, k, padding=padding, stride=stride)
    w = torch.flip(weight, dims=(2, 3)).reshape(O, -1)
    return torch.matmul(w, cols).reshape(B, O, Ho, Wo)
