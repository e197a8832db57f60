"""Reference and traps for conv2d-groups: nn.Conv2d by hand, with stride, padding, dilation and groups.

Every function takes the variant keyword (drills/README.md, "Variants"): `layout` is nchw for
x (B, C, H, W), weight (C_out, C // G, kh, kw) and output (B, C_out, H_out, W_out), PyTorch's
layouts and the contract, or nhwc for x (B, H, W, C), weight (kh, kw, C // G, C_out) and output
(B, H_out, W_out, C_out), Keras' channels_last layers. Each function computes in torch's layouts
and hands its answer back in the variant's.

The reference is im2col without F.unfold: Tensor.unfold gives a strided view of every window,
[..., ::d, ::d] keeps the dilated taps, and one einsum per group contracts (C // G, kh, kw).
Its peak is the (B, C, H_out, W_out, kh, kw) column copy einsum makes, B*C*kh*kw*H_out*W_out,
like PyTorch's own CPU slow_conv2d and drill 24's F.unfold route."""
import math

import torch
import torch.nn.functional as F


def _in(x, weight, layout):
    """x and weight in torch's layouts: (B, C, H, W) and (C_out, C // G, kh, kw)."""
    if layout == "nhwc":
        return x.permute(0, 3, 1, 2), weight.permute(3, 2, 0, 1)
    return x, weight


def _out(out, layout):
    return out.permute(0, 2, 3, 1) if layout == "nhwc" else out


def _size(n, k, s, p, d):
    return (n + 2 * p - d * (k - 1) - 1) // s + 1  # floor: a window sticking out past the padding is never taken


def _windows(x, kh, kw, s, p, d, H_out, W_out, far=(0, 0)):
    """(B, C, H_out, W_out, kh, kw) view of the dilated windows of x padded by p (plus `far` at the bottom/right)."""
    xp = F.pad(x, (p, p + far[1], p, p + far[0]))
    span_h, span_w = d * (kh - 1) + 1, d * (kw - 1) + 1
    win = xp.unfold(2, span_h, s).unfold(3, span_w, s)  # (B, C, H_out', W_out', span_h, span_w)
    return win[:, :, :H_out, :W_out, ::d, ::d]


def _grouped(win, weight, bias, G, interleave_in=False, interleave_out=False):
    """Contract each group's windows with its filters: (B, C_out, H_out, W_out)."""
    B, C, H_out, W_out, kh, kw = win.shape
    C_out, Cg = weight.shape[0], weight.shape[1]
    if interleave_in:  # group g reads channels g, g + G, ...
        win = win.reshape(B, Cg, G, H_out, W_out, kh, kw).transpose(1, 2)
    else:  # group g reads channels g*Cg .. (g+1)*Cg - 1
        win = win.reshape(B, G, Cg, H_out, W_out, kh, kw)
    if interleave_out:  # output channel o (its filter weight[o]) belongs to group o % G
        w = weight.reshape(C_out // G, G, Cg, kh, kw).transpose(0, 1)
    else:  # filters g*Og .. (g+1)*Og - 1 belong to group g
        w = weight.reshape(G, C_out // G, Cg, kh, kw)
    out = torch.einsum("bgcyxij,gocij->bgoyx", win, w)  # (B, G, Og, H_out, W_out)
    if interleave_out:
        out = out.transpose(1, 2)
    return out.reshape(B, C_out, H_out, W_out) + bias[:, None, None]


def _conv(x, weight, bias, stride, padding, dilation, groups, **trap):
    kh, kw = weight.shape[-2:]
    H_out = _size(x.shape[2], kh, stride, padding, dilation)
    W_out = _size(x.shape[3], kw, stride, padding, dilation)
    win = _windows(x, kh, kw, stride, padding, dilation, H_out, W_out)
    return _grouped(win, weight, bias, groups, **trap)


def conv2d(x, weight, bias, stride: int, padding: int, dilation: int, groups: int, *, layout="nchw"):
    x, weight = _in(x, weight, layout)
    return _out(_conv(x, weight, bias, stride, padding, dilation, groups), layout)


# ----------------------------------------------------------------------------- traps


def trap_interleaved_groups(x, weight, bias, stride: int, padding: int, dilation: int, groups: int, *, layout="nchw"):
    """Channel c in group c % G: output channel o, with its own filter weight[o], reads input channels o % G,
    o % G + G, ... (x[:, g::G] and weight[g::G] per group, or x.view(B, C // G, G, ...))."""
    x, weight = _in(x, weight, layout)
    out = _conv(x, weight, bias, stride, padding, dilation, groups, interleave_in=True, interleave_out=True)
    return _out(out, layout)


def trap_dilation_ignored(x, weight, bias, stride: int, padding: int, dilation: int, groups: int, *, layout="nchw"):
    """dilation dropped everywhere: an ordinary convolution, with its larger output."""
    x, weight = _in(x, weight, layout)
    return _out(_conv(x, weight, bias, stride, padding, 1, groups), layout)


def trap_dilation_taps_adjacent(x, weight, bias, stride: int, padding: int, dilation: int, groups: int, *,
                                layout="nchw"):
    """The output size counts the dilation, the taps do not: every window reads kh x kw adjacent pixels."""
    x, weight = _in(x, weight, layout)
    kh, kw = weight.shape[-2:]
    H_out = _size(x.shape[2], kh, stride, padding, dilation)
    W_out = _size(x.shape[3], kw, stride, padding, dilation)
    win = _windows(x, kh, kw, stride, padding, 1, H_out, W_out)
    return _out(_grouped(win, weight, bias, groups), layout)


def trap_flipped_kernel(x, weight, bias, stride: int, padding: int, dilation: int, groups: int, *, layout="nchw"):
    """A true convolution (scipy.signal.convolve2d's): the kernel turned by 180 degrees."""
    x, weight = _in(x, weight, layout)
    return _out(_conv(x, weight.flip(-2, -1), bias, stride, padding, dilation, groups), layout)


def trap_ceil_output_size(x, weight, bias, stride: int, padding: int, dilation: int, groups: int, *, layout="nchw"):
    """Sizes rounded up; the extra last window reads zeros past the far edge (pooling's ceil_mode, padded)."""
    x, weight = _in(x, weight, layout)
    kh, kw = weight.shape[-2:]
    H, W = x.shape[2], x.shape[3]
    span_h, span_w = dilation * (kh - 1) + 1, dilation * (kw - 1) + 1
    H_out = math.ceil((H + 2 * padding - span_h) / stride) + 1
    W_out = math.ceil((W + 2 * padding - span_w) / stride) + 1
    far = ((H_out - 1) * stride + span_h - (H + 2 * padding), (W_out - 1) * stride + span_w - (W + 2 * padding))
    win = _windows(x, kh, kw, stride, padding, dilation, H_out, W_out, far=far)
    return _out(_grouped(win, weight, bias, groups), layout)


def trap_nchw_output(x, weight, bias, stride: int, padding: int, dilation: int, groups: int):
    """Under layout=nhwc: the inputs read right, the answer left in torch's (B, C_out, H_out, W_out)."""
    x, weight = _in(x, weight, "nhwc")
    return _conv(x, weight, bias, stride, padding, dilation, groups)


# ------------------------------------------------- trap matching: the shapes of one mistake


def _layout(call) -> str:
    return "nhwc" if tuple(call.function.args[0].shape) == ("B", "H", "W", "C") else "nchw"


def _close(call, got, want) -> bool:
    if not isinstance(got, torch.Tensor) or tuple(got.shape) != tuple(want.shape) or not got.is_floating_point():
        return False
    tol = (4e-2, 4e-2) if call.dtype == torch.float16 else (4e-5, 4e-4)
    return bool(((got.double() - want).abs() <= tol[0] + tol[1] * want.abs()).all())


def match_interleaved(call, got, trap_out) -> bool:
    """Interleaved channels on the input side, the output side, or both (a view(B, C // G, G, ...) on
    one side and the contiguous blocks on the other is the same mistake made once)."""
    x, weight, bias, s, p, d, G = call.args
    layout = _layout(call)
    x, weight = _in(x.double(), weight.double(), layout)
    for how in ({"interleave_in": True}, {"interleave_out": True}):
        if _close(call, got, _out(_conv(x, weight, bias.double(), s, p, d, G, **how), layout)):
            return True
    return False
