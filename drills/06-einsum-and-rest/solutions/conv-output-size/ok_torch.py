import torch
import torch.nn.functional as F


def conv_out(H, k, s, p, d=1):
    x = torch.zeros(1, 1, H, 1)
    w = torch.zeros(1, 1, k, 1)
    return F.conv2d(x, w, stride=(s, 1), padding=(p, 0), dilation=(d, 1)).shape[2]


def conv_transpose_out(H, k, s, p, output_padding=0):
    return torch.tensor((H - 1) * s - 2 * p + k + output_padding)
