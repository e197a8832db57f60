# trap: random-b
import torch
import torch.nn as nn


def lora_init(d_in, d_out, r):
    A = nn.Parameter(torch.randn(r, d_in) / r)
    B = nn.Parameter(torch.randn(d_out, r) / r)
    return A, B


def lora_forward(x, W, A, B, alpha):
    return x @ W.T + (x @ A.T) @ B.T * (alpha / A.shape[0])


def lora_param_count(d_in, d_out, r):
    return r * (d_in + d_out)
