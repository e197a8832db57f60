import torch


def lora_init(d_in, d_out, r):
    return torch.rand(r, d_in) - 0.5, torch.zeros(d_out, r)


def lora_forward(x, W, A, B, alpha):
    r = A.size(0)
    W_eff = W.float() + (alpha / r) * (B.float() @ A.float())   # merged weight, (d_out, d_in)
    return (x.float() @ W_eff.T).to(x.dtype)


def lora_param_count(d_in, d_out, r):
    A, B = torch.empty(r, d_in), torch.empty(d_out, r)
    return A.numel() + B.numel()
