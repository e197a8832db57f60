import torch.nn.functional as F


def conv2d_im2col(x, weight, stride, padding):
    B = x.shape[0]
    O, C, k, _ = weight.shape
    H_out = (x.shape[2] + 2 * padding - k) // stride + 1
    W_out = (x.shape[3] + 2 * padding - k) // stride + 1
    cols = F.unfold(x.float(), k, padding=padding, stride=stride)
    y = weight.float().flatten(1) @ cols
    return y.view(B, O, H_out, W_out).to(x.dtype)
