"""Reference and traps for im2col: a 2-D convolution as one matrix product.

Every function takes the variant keyword (drills/README.md, "Variants"): `layout` is nchw for
x (B, C, H, W), weight (C_out, C, k, k) and output (B, C_out, H_out, W_out), torch's layouts and
the contract, or nhwc for x (B, H, W, C), weight (k, k, C, C_out) (HWIO) and output
(B, H_out, W_out, C_out), as tf.nn.conv2d and Flax's nn.Conv have them. Each function computes
in torch's layouts and hands its answer back in the variant's."""
import math

import torch
import torch.nn.functional as F


def _in(x, weight, layout):
    """x and weight in torch's layouts: (B, C, H, W) and (C_out, C, k, k)."""
    if layout == "nhwc":
        return x.permute(0, 3, 1, 2), weight.permute(3, 2, 0, 1)
    return x, weight


def _out(out, layout):
    """A (B, C_out, H_out, W_out) answer in the variant's layout."""
    return out.permute(0, 2, 3, 1) if layout == "nhwc" else out


def conv2d_im2col(x, weight, stride: int, padding: int, *, layout="nchw"):
    x, weight = _in(x, weight, layout)
    return _out(_conv(x, weight, stride, padding), layout)


def _conv(x, weight, stride, padding):
    B, C, H, W = x.shape
    C_out, _, k, _ = weight.shape
    H_out = (H + 2 * padding - k) // stride + 1  # floor: a last partial window is dropped
    W_out = (W + 2 * padding - k) // stride + 1
    cols = F.unfold(x, kernel_size=k, stride=stride, padding=padding)  # (B, C*k*k, H_out*W_out)
    w = weight.reshape(C_out, C * k * k)  # (C_out, C*k*k), same (C, k, k) order as unfold
    out = w @ cols  # (B, C_out, H_out*W_out)
    return out.reshape(B, C_out, H_out, W_out)


def _by_unfold(x, w2d, k, stride, padding, H_out, W_out):
    cols = F.unfold(x, kernel_size=k, stride=stride, padding=padding)
    return (w2d @ cols).reshape(x.shape[0], w2d.shape[0], H_out, W_out)


def trap_ceil_output_size(x, weight, stride: int, padding: int, *, layout="nchw"):
    x, weight = _in(x, weight, layout)
    B, C, H, W = x.shape
    C_out, _, k, _ = weight.shape
    H_out = math.ceil((H + 2 * padding - k) / stride) + 1  # one window too many when s does not divide
    W_out = math.ceil((W + 2 * padding - k) / stride) + 1
    return _out(_by_unfold(x, weight.reshape(C_out, -1), k, stride, padding, H_out, W_out), layout)


def trap_h_w_swapped(x, weight, stride: int, padding: int, *, layout="nchw"):
    x, weight = _in(x, weight, layout)
    B, C, H, W = x.shape
    C_out, _, k, _ = weight.shape
    H_out = (H + 2 * padding - k) // stride + 1
    W_out = (W + 2 * padding - k) // stride + 1
    return _out(_by_unfold(x, weight.reshape(C_out, -1), k, stride, padding, W_out, H_out), layout)


def trap_kernel_channels_last(x, weight, stride: int, padding: int, *, layout="nchw"):
    x, weight = _in(x, weight, layout)
    B, C, H, W = x.shape
    C_out, _, k, _ = weight.shape
    H_out = (H + 2 * padding - k) // stride + 1
    W_out = (W + 2 * padding - k) // stride + 1
    w = weight.permute(0, 2, 3, 1).reshape(C_out, -1)  # (k, k, C) order against unfold's (C, k, k)
    return _out(_by_unfold(x, w, k, stride, padding, H_out, W_out), layout)


def trap_flipped_kernel(x, weight, stride: int, padding: int, *, layout="nchw"):
    x, weight = _in(x, weight, layout)
    return _out(_conv(x, weight.flip(-2, -1), stride, padding), layout)  # true convolution, not cross-correlation


def trap_no_padding(x, weight, stride: int, padding: int, *, layout="nchw"):
    x, weight = _in(x, weight, layout)
    return _out(_conv(x, weight, stride, 0), layout)


def trap_output_transposed(x, weight, stride: int, padding: int, *, layout="nchw"):
    x, weight = _in(x, weight, layout)
    return _out(_conv(x, weight, stride, padding).transpose(2, 3), layout)  # positions written as [j, i]


def trap_ceil_padded(x, weight, stride: int, padding: int, *, layout="nchw"):
    """Ceil sizes made to fit by zero-padding the bottom and right edges (pooling's ceil_mode)."""
    x, weight = _in(x, weight, layout)
    B, C, H, W = x.shape
    k = weight.shape[-1]
    H_out = math.ceil((H + 2 * padding - k) / stride) + 1
    W_out = math.ceil((W + 2 * padding - k) / stride) + 1
    extra_h = (H_out - 1) * stride + k - (H + 2 * padding)
    extra_w = (W_out - 1) * stride + k - (W + 2 * padding)
    xp = F.pad(x, (padding, padding + extra_w, padding, padding + extra_h))
    return _out(_conv(xp, weight, stride, 0), layout)
