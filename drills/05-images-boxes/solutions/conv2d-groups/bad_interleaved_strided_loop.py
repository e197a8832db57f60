# trap: interleaved-groups
# Group g as the strided slices x[:, g::G] and weight[g::G] (a channel shuffle read as grouping), in float32.
import torch
import torch.nn.functional as F


def conv2d(x, weight, bias, stride, padding, dilation, groups):
    B, C, H, W = x.shape
    C_out, Cg, kh, kw = weight.shape
    H_out = (H + 2 * padding - dilation * (kh - 1) - 1) // stride + 1
    W_out = (W + 2 * padding - dilation * (kw - 1) - 1) // stride + 1
    xp = F.pad(x.float(), (padding, padding, padding, padding))
    out = torch.zeros(B, C_out, H_out, W_out, device=x.device)
    for g in range(groups):
        xg, wg = xp[:, g::groups], weight[g::groups].float()
        acc = 0
        for i in range(kh):
            for j in range(kw):
                tap = xg[:, :, i * dilation: i * dilation + stride * (H_out - 1) + 1: stride,
                         j * dilation: j * dilation + stride * (W_out - 1) + 1: stride]
                acc = acc + torch.einsum("bchw,oc->bohw", tap, wg[:, :, i, j])
        out[:, g::groups] = acc
    return (out + bias.float()[:, None, None]).to(x.dtype)
