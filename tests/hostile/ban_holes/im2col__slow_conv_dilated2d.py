# banned: called torch.nn.functional.conv2d (as aten.slow_conv_dilated2d)
# needs: torch.ops.aten.slow_conv_dilated2d
import torch


def conv2d_im2col(x, weight, stride: int, padding: int):
    k = list(weight.shape[-2:])
    return torch.ops.aten.slow_conv_dilated2d(x, weight, k, None, [stride, stride], [padding, padding], [1, 1])
