# Hugging Face's LlamaRMSNorm.forward, as a function.
import torch


def rms_norm(x, weight, eps=1e-6):
    input_dtype = x.dtype
    hidden_states = x.to(torch.float32)
    variance = hidden_states.pow(2).mean(-1, keepdim=True)
    hidden_states = hidden_states * torch.rsqrt(variance + eps)
    return weight * hidden_states.to(input_dtype)
