# Hugging Face's Llama route: cos and sin over the whole dh (the angles repeated), then rotate_half.
import torch


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def apply_rope(x, pos, base=10000.0):
    dh = x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, dh, 2, dtype=torch.int64, device=x.device).float() / dh))
    freqs = pos.float()[:, :, None] * inv_freq[None, None, :]  # (B, T, dh/2)
    emb = torch.cat((freqs, freqs), dim=-1)  # (B, T, dh)
    cos = emb.cos().to(x.dtype).unsqueeze(1)  # (B, 1, T, dh)
    sin = emb.sin().to(x.dtype).unsqueeze(1)
    return x * cos + rotate_half(x) * sin
