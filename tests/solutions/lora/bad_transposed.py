# trap: a-b-swapped
import torch


def lora_init(d_in, d_out, r):
    A = torch.randn(d_in, r) * 0.01      # (in, r)
    B = torch.zeros(r, d_out)            # (r, out)
    return A, B


def lora_forward(x, W, A, B, alpha):
    return x @ W.T + (x @ A @ B) * (alpha / A.shape[1])


def lora_param_count(d_in, d_out, r):
    return r * (d_in + d_out)
