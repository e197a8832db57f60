# trap: kernel-channels-last
# variant: layout=nhwc
# F.unfold's patches are (C, k, k); the HWIO kernel reshaped as it lies is (k, k, C)
import torch.nn.functional as F


def conv2d_im2col(x, weight, stride, padding):
    B, H, W, C = x.shape
    k, _, _, C_out = weight.shape
    H_out = (H + 2 * padding - k) // stride + 1
    W_out = (W + 2 * padding - k) // stride + 1
    cols = F.unfold(x.permute(0, 3, 1, 2), kernel_size=k, stride=stride, padding=padding)  # (B, C*k*k, L)
    out = cols.transpose(1, 2) @ weight.reshape(-1, C_out)  # (B, L, C_out)
    return out.reshape(B, H_out, W_out, C_out)
