# trap: alpha-not-over-r
import torch
import torch.nn as nn


def lora_init(d_in, d_out, r):
    return nn.Parameter(torch.randn(r, d_in) * 0.01), nn.Parameter(torch.zeros(d_out, r))


def lora_forward(x, W, A, B, alpha):
    return x @ W.T + alpha * (x @ A.T @ B.T)


def lora_param_count(d_in, d_out, r):
    return r * (d_in + d_out)
