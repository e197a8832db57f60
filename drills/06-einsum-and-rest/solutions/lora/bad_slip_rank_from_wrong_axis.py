# trap: none
# lora_forward reads the rank as A.shape[1], which is d_in: the scale is alpha / d_in.
import torch


def lora_init(d_in, d_out, r):
    A = torch.nn.Parameter(torch.randn(r, d_in) / r)
    B = torch.nn.Parameter(torch.zeros(d_out, r))
    return A, B


def lora_forward(x, W, A, B, alpha):
    r = A.shape[1]
    return x @ W.T + (x @ A.T @ B.T) * (alpha / r)


def lora_param_count(d_in, d_out, r):
    return r * (d_in + d_out)
