import torch


def lora_init(d_in: int, d_out: int, r: int):
    A = torch.empty(r, d_in).normal_(0.0, 0.02)
    B = torch.zeros(d_out, r, dtype=torch.float32)
    return (A, B)


def lora_forward(x, W, A, B, alpha: float):
    lead = x.shape[:-1]
    flat = x.reshape(-1, x.shape[-1])                       # (N*T, d_in)
    base = torch.einsum("ni,oi->no", flat, W)
    low = torch.einsum("ni,ri->nr", flat, A)                # (N*T, r)
    up = torch.einsum("nr,or->no", low, B)                  # (N*T, d_out)
    out = base + up * (alpha / B.shape[1])
    return out.reshape(*lead, W.shape[0])


def lora_param_count(d_in: int, d_out: int, r: int) -> int:
    return int(r * (d_in + d_out))
