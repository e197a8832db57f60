# trap: transposed-shapes
# variant: layout=kernel
# PEFT's shapes from memory, (r, d_in) and (d_out, r), where the question stores kernels.
import torch


def lora_init(d_in, d_out, r):
    return torch.randn(r, d_in) / r, torch.zeros(d_out, r)


def lora_forward(x, W, A, B, alpha):
    r = A.shape[1]
    return x @ W + (x @ A) @ B * (alpha / r)


def lora_param_count(d_in, d_out, r):
    return r * (d_in + d_out)
