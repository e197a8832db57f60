# trap: full-matrix-count
import torch


def lora_init(d_in, d_out, r):
    return torch.randn(r, d_in) * 0.01, torch.zeros(d_out, r)


def lora_forward(x, W, A, B, alpha):
    return x @ W.T + (x @ A.T) @ B.T * (alpha / A.shape[0])


def lora_param_count(d_in, d_out, r):
    return d_in * d_out
