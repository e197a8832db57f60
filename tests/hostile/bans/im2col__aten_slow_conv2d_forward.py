# kernel: aten::_slow_conv2d_forward
import torch


def conv2d_im2col(x, weight, stride: int, padding: int):
    s, p, k = [stride, stride], [padding, padding], list(weight.shape[-2:])
    return torch.ops.aten._slow_conv2d_forward(x, weight, k, None, s, p)
