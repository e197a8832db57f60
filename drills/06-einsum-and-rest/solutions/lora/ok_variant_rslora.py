# variant: scaling=rslora
# rsLoRA, as PEFT's use_rslora=True: the update is scaled by alpha / sqrt(r), not alpha / r.
import math

import torch
import torch.nn.functional as F
from torch import nn


def lora_init(d_in: int, d_out: int, r: int):
    A = nn.Parameter(torch.empty(r, d_in))
    nn.init.kaiming_uniform_(A, a=math.sqrt(5))
    B = nn.Parameter(torch.zeros(d_out, r))
    return A, B


def lora_forward(x, W, A, B, alpha: float):
    r = A.shape[0]
    scaling = alpha / math.sqrt(r)
    return F.linear(x, W) + F.linear(F.linear(x, A), B) * scaling


def lora_param_count(d_in: int, d_out: int, r: int) -> int:
    return r * d_in + d_out * r
