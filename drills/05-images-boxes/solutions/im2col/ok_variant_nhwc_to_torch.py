# variant: layout=nhwc
# move everything to torch's layouts, im2col there, and move the answer back to channels-last
import torch.nn.functional as F


def conv2d_im2col(x, weight, stride, padding):
    xt = x.permute(0, 3, 1, 2)  # (B, C, H, W)
    wt = weight.permute(3, 2, 0, 1)  # (C_out, C, k, k)
    B, C, H, W = xt.shape
    C_out, _, k, _ = wt.shape
    H_out = (H + 2 * padding - k) // stride + 1
    W_out = (W + 2 * padding - k) // stride + 1
    cols = F.unfold(xt, kernel_size=k, stride=stride, padding=padding)  # (B, C*k*k, L)
    out = wt.reshape(C_out, -1) @ cols  # (B, C_out, L)
    return out.reshape(B, C_out, H_out, W_out).permute(0, 2, 3, 1)
