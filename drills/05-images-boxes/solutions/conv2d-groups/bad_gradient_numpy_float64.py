# trap: none
# Right in every case, but it cannot train: no gradient reaches x or weight (its values leave autograd on the way: .item(), .tolist(), .detach() or a NumPy copy).
# numpy with as_strided windows, in float64, back to a tensor of x's dtype and device.
import numpy as np
import torch


def conv2d(x, weight, bias, stride, padding, dilation, groups):
    xn = x.detach().cpu().double().numpy()
    wn = weight.detach().cpu().double().numpy()
    B, C, H, W = xn.shape
    C_out, Cg, kh, kw = wn.shape
    G, Og = groups, C_out // groups
    H_out = (H + 2 * padding - dilation * (kh - 1) - 1) // stride + 1
    W_out = (W + 2 * padding - dilation * (kw - 1) - 1) // stride + 1
    xp = np.pad(xn, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    sb, sc, sh, sw = xp.strides
    win = np.lib.stride_tricks.as_strided(
        xp, (B, C, H_out, W_out, kh, kw), (sb, sc, sh * stride, sw * stride, sh * dilation, sw * dilation))
    win = win.reshape(B, G, Cg, H_out, W_out, kh, kw)
    out = np.einsum("bgcyxij,gocij->bgoyx", win, wn.reshape(G, Og, Cg, kh, kw)).reshape(B, C_out, H_out, W_out)
    out = out + bias.detach().cpu().double().numpy()[:, None, None]
    return torch.from_numpy(np.ascontiguousarray(out)).to(device=x.device, dtype=x.dtype)
