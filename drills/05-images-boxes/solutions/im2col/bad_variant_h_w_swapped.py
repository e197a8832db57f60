# trap: h-w-swapped
# variant: layout=nhwc
import torch.nn.functional as F


def conv2d_im2col(x, weight, stride, padding):
    B, H, W, C = x.shape
    k, _, _, C_out = weight.shape
    H_out = (H + 2 * padding - k) // stride + 1
    W_out = (W + 2 * padding - k) // stride + 1
    cols = F.unfold(x.permute(0, 3, 1, 2), kernel_size=k, stride=stride, padding=padding)
    w = weight.permute(3, 2, 0, 1).reshape(C_out, -1)
    out = (w @ cols).transpose(1, 2)  # (B, L, C_out)
    return out.reshape(B, W_out, H_out, C_out)
