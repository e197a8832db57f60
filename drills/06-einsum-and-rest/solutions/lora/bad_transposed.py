# trap: none  (A and B swapped in lora_init too, so the forward-only trap a-b-swapped cannot explain every failing case)
import torch


def lora_init(d_in, d_out, r):
    A = torch.randn(d_in, r) * 0.01      # (in, r)
    B = torch.zeros(r, d_out)            # (r, out)
    return A, B


def lora_forward(x, W, A, B, alpha):
    return x @ W.T + (x @ A @ B) * (alpha / A.shape[1])


def lora_param_count(d_in, d_out, r):
    return r * (d_in + d_out)
