# trap: no-padding  (unfold without the padding, so the output is smaller by the border)
import torch.nn.functional as F


def conv2d_im2col(x, weight, stride, padding):
    B, C, H, W = x.shape
    C_out, _, k, _ = weight.shape
    cols = F.unfold(x, k, stride=stride)  # (B, C*k*k, L)
    H_out = (H - k) // stride + 1
    W_out = (W - k) // stride + 1
    out = weight.view(C_out, -1) @ cols  # (B, C_out, L)
    return out.view(B, C_out, H_out, W_out)
