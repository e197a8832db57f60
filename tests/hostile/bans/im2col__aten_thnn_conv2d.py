# kernel: aten::thnn_conv2d
import torch


def conv2d_im2col(x, weight, stride: int, padding: int):
    s, p, k = [stride, stride], [padding, padding], list(weight.shape[-2:])
    return torch.ops.aten.thnn_conv2d(x, weight, k, None, s, p)
