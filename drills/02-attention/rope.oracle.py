"""The oracle for rope: the rotation as a complex multiplication in float64.

Kept apart from the reference so that it is an independent check (drills/README.md): each pair of
dimensions is one complex number, multiplied by exp(i * pos * base^(-2j/dh)). Arguments come with
floating tensors upcast to float64."""
from __future__ import annotations

import torch


def rope_complex(x: torch.Tensor, pos: torch.Tensor, base: float = 10000.0, *,
                 pairing: str = "half") -> torch.Tensor:
    B, H, T, dh = x.shape
    x = x.to(torch.float64)
    j = torch.arange(dh // 2, dtype=torch.float64)
    theta = pos.to(torch.float64)[:, None, :, None] * torch.pow(float(base), -2.0 * j / dh)  # (B, 1, T, dh/2)
    turn = torch.polar(torch.ones_like(theta), theta)
    if pairing == "interleaved":
        z = torch.complex(x[..., 0::2].contiguous(), x[..., 1::2].contiguous()) * turn
        return torch.stack([z.real, z.imag], dim=-1).reshape(B, H, T, dh)
    z = torch.complex(x[..., : dh // 2].contiguous(), x[..., dh // 2:].contiguous()) * turn
    return torch.cat([z.real, z.imag], dim=-1)
