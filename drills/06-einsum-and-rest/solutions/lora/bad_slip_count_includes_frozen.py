# trap: none
# lora_param_count adds the frozen W (d_out * d_in) to the adapter's r * (d_in + d_out).
import torch


def lora_init(d_in, d_out, r):
    A = torch.empty(r, d_in)
    torch.nn.init.kaiming_uniform_(A, a=5 ** 0.5)
    return A, torch.zeros(d_out, r)


def lora_forward(x, W, A, B, alpha):
    r = A.shape[0]
    return torch.nn.functional.linear(x, W) + torch.nn.functional.linear(torch.nn.functional.linear(x, A), B) * (alpha / r)


def lora_param_count(d_in, d_out, r):
    return d_out * d_in + r * (d_in + d_out)
