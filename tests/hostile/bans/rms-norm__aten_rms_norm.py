# kernel: aten::rms_norm
import torch


def rms_norm(x, weight, eps=1e-6):
    y = torch.ops.aten.rms_norm(x.float(), [x.shape[-1]], None, eps)
    return y.to(x.dtype) * weight
