# trap: interleaved-pairs
# Meta's view_as_complex route, neighbours paired, for a contract that splits halves.
import torch


def apply_rope(x, pos, base=10000.0):
    B, H, T, dh = x.shape
    freqs = 1.0 / (base ** (torch.arange(0, dh, 2, device=x.device).float() / dh))
    angles = pos.float()[:, None, :, None] * freqs
    cis = torch.polar(torch.ones_like(angles), angles)
    xc = torch.view_as_complex(x.float().reshape(B, H, T, -1, 2))
    return torch.view_as_real(xc * cis).reshape(B, H, T, dh).to(x.dtype)
