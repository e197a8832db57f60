# variant: layout=kernel
# Keras-style kernels, (in, out): y = x @ W, and the adapter is x @ A @ B with A (d_in, r), B (r, d_out).
import torch


def lora_init(d_in, d_out, r):
    A = torch.nn.init.kaiming_uniform_(torch.empty(d_in, r))  # Keras draws lora_kernel_a with he_uniform
    B = torch.zeros(r, d_out)
    return A, B


def lora_forward(x, W, A, B, alpha):
    r = A.shape[1]  # A is (d_in, r): the rank is its last axis here
    return x @ W + (x @ A) @ B * (alpha / r)


def lora_param_count(d_in, d_out, r):
    return d_in * r + r * d_out
