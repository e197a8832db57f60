# variant: weight=gemma
# Hugging Face's GemmaRMSNorm: the weight is an offset from 1, applied in float32.
import torch


def rms_norm(x, weight, eps=1e-6):
    xf = x.float()
    output = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)
    output = output * (1.0 + weight.float())
    return output.type_as(x)
