# trap: none
# The output size uses / instead of //, a float, and view() refuses float sizes.
import torch.nn.functional as F


def conv2d_im2col(x, weight, stride, padding):
    B, C, H, W = x.shape
    C_out, _, k, _ = weight.shape
    H_out = (H + 2 * padding - k) / stride + 1
    W_out = (W + 2 * padding - k) / stride + 1
    cols = F.unfold(x, k, padding=padding, stride=stride)
    return (weight.view(C_out, -1) @ cols).view(B, C_out, H_out, W_out)
