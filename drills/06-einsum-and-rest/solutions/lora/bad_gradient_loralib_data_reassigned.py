# trap: none
# Right in every case, but it cannot train: no gradient reaches x or W: it runs under no_grad and assigns .data (the gradient case).
# loralib's Linear (microsoft/LoRA, loralib/layers.py), its parameters reassigned with param.data = ...:
# on a GPU that moves each one to the inputs' device, so the device case must not call it a device mix
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class LoRALayer:
    def __init__(self, r, lora_alpha):
        self.r = r
        self.lora_alpha = lora_alpha


class Linear(nn.Linear, LoRALayer):
    # loralib's Linear: a frozen nn.Linear plus lora_A (r, in) and lora_B (out, r)
    def __init__(self, in_features, out_features, r=0, lora_alpha=1, **kwargs):
        nn.Linear.__init__(self, in_features, out_features, **kwargs)
        LoRALayer.__init__(self, r=r, lora_alpha=lora_alpha)
        if r > 0:
            self.lora_A = nn.Parameter(self.weight.new_zeros((r, in_features)))
            self.lora_B = nn.Parameter(self.weight.new_zeros((out_features, r)))
            self.scaling = self.lora_alpha / self.r
            self.weight.requires_grad = False
        self.reset_parameters()

    def reset_parameters(self):
        nn.Linear.reset_parameters(self)
        if hasattr(self, "lora_A"):
            nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
            nn.init.zeros_(self.lora_B)

    def forward(self, x):
        result = F.linear(x, self.weight, bias=self.bias)
        result += (x @ self.lora_A.transpose(0, 1) @ self.lora_B.transpose(0, 1)) * self.scaling
        return result


def lora_init(d_in, d_out, r):
    layer = Linear(d_in, d_out, r=r)
    return layer.lora_A, layer.lora_B


def lora_forward(x, W, A, B, alpha):
    d_out, d_in = W.shape
    layer = Linear(d_in, d_out, r=A.shape[0], lora_alpha=alpha, bias=False)
    layer.weight.data = W
    layer.lora_A.data = A
    layer.lora_B.data = B
    with torch.no_grad():
        return layer(x)


def lora_param_count(d_in, d_out, r):
    return r * d_in + d_out * r
