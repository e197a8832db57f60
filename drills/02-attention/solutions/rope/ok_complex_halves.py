# The halves as the real and imaginary parts of dh/2 complex numbers, turned by exp(i * theta).
import torch


def apply_rope(x, pos, base=10000.0):
    B, H, T, dh = x.shape
    half = dh // 2
    inv_freq = base ** (-torch.arange(half, device=x.device, dtype=torch.float32) * 2 / dh)
    theta = torch.outer(pos.reshape(-1).float(), inv_freq).view(B, 1, T, half)
    z = torch.complex(x[..., :half].float(), x[..., half:].float())
    z = z * torch.polar(torch.ones_like(theta), theta)
    return torch.cat([z.real, z.imag], dim=-1).to(x.dtype)
