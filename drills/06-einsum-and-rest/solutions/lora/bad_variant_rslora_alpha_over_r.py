# trap: alpha-over-r
# variant: scaling=rslora
# PEFT's default scale from memory, where the question asked for rsLoRA.
import torch


def lora_init(d_in: int, d_out: int, r: int):
    return torch.randn(r, d_in) * 0.02, torch.zeros(d_out, r)


def lora_forward(x, W, A, B, alpha: float):
    scaling = alpha / A.shape[0]
    return x @ W.T + scaling * (x @ A.T @ B.T)


def lora_param_count(d_in: int, d_out: int, r: int) -> int:
    return r * (d_in + d_out)
