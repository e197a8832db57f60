import math
import torch
import torch.nn as nn
import torch.nn.functional as F


def lora_init(d_in, d_out, r):
    A = nn.Parameter(torch.empty(r, d_in))
    nn.init.kaiming_uniform_(A, a=math.sqrt(5))      # as PEFT does
    B = nn.Parameter(torch.zeros(d_out, r))
    return A, B


def lora_forward(x, W, A, B, alpha):
    r = A.shape[0]
    return F.linear(x, W) + F.linear(F.linear(x, A), B) * (alpha / r)


def lora_param_count(d_in, d_out, r):
    return r * d_in + d_out * r
