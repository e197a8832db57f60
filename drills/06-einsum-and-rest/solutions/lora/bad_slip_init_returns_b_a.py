# trap: none  (A random and B zero as the contract says, but returned as (B, A): the order slip, no init trap)
import torch
import torch.nn.functional as F


def lora_init(d_in, d_out, r):
    A = torch.randn(r, d_in) * 0.01
    B = torch.zeros(d_out, r)
    return B, A


def lora_forward(x, W, A, B, alpha):
    return F.linear(x, W) + F.linear(F.linear(x, A), B) * (alpha / A.shape[0])


def lora_param_count(d_in, d_out, r):
    return r * (d_in + d_out)
