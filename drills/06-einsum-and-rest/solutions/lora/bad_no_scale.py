# trap: no-scale
import torch.nn.functional as F
import torch


def lora_init(d_in, d_out, r):
    return torch.randn(r, d_in) * 0.01, torch.zeros(d_out, r)


def lora_forward(x, W, A, B, alpha):
    return F.linear(x, W) + F.linear(F.linear(x, A), B)


def lora_param_count(d_in, d_out, r):
    return r * (d_in + d_out)
