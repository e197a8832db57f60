# variant: layout=nhwc
# channels-last im2col: windows cut straight from the padded NHWC tensor, each flattened (k, k, C)
# to line up with the HWIO kernel flattened as it lies.
import torch.nn.functional as F


def conv2d_im2col(x, weight, stride, padding):
    B, H, W, C = x.shape
    k, _, _, C_out = weight.shape
    xp = F.pad(x, (0, 0, padding, padding, padding, padding))  # pad W and H, not C
    win = xp.unfold(1, k, stride).unfold(2, k, stride)  # (B, H_out, W_out, C, k, k)
    H_out, W_out = win.shape[1], win.shape[2]
    cols = win.permute(0, 1, 2, 4, 5, 3).reshape(B, H_out * W_out, k * k * C)  # (k, k, C) inside
    out = cols @ weight.reshape(k * k * C, C_out)  # (B, L, C_out)
    return out.reshape(B, H_out, W_out, C_out)
