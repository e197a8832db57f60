# trap: a-b-swapped  (A and B fed to F.linear as if A were (d_in, r) and B (r, d_out))
import torch
import torch.nn.functional as F


def lora_init(d_in, d_out, r):
    return torch.randn(r, d_in) * 0.01, torch.zeros(d_out, r)


def lora_forward(x, W, A, B, alpha):
    update = F.linear(F.linear(x, B.T), A.T)
    return F.linear(x, W) + update * (alpha / A.shape[0])


def lora_param_count(d_in, d_out, r):
    return r * d_in + d_out * r
