# banned: called torch.nn.functional.conv2d (as aten.slow_conv_transpose2d)
# needs: torch.ops.aten.slow_conv_transpose2d
import torch


def conv2d_im2col(x, weight, stride: int, padding: int):
    # a stride-1 transposed convolution with the kernel flipped and padding k-1 is the valid correlation
    k = weight.shape[-1]
    xp = torch.nn.functional.pad(x, [padding] * 4)
    w = weight.flip(-1, -2).transpose(0, 1).contiguous()
    full = torch.ops.aten.slow_conv_transpose2d(xp, w, [k, k], None, [1, 1], [k - 1, k - 1])
    return full[:, :, ::stride, ::stride]
