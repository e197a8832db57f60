# trap: ceil-output-size
import math
import torch
import torch.nn.functional as F


def conv2d_im2col(x, weight, stride, padding):
    B, C, H, W = x.shape
    O, _, k, _ = weight.shape
    Ho = math.ceil((H + 2 * padding - k) / stride) + 1
    Wo = math.ceil((W + 2 * padding - k) / stride) + 1
    cols = F.unfold(x, k, padding=padding, stride=stride)
    return (weight.reshape(O, -1) @ cols).reshape(B, O, Ho, Wo)
