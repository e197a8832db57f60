"""Reference and traps for rope.

Every function takes the variant keyword `pairing` (drills/README.md, "Variants"): which
dimensions rotate together. half (the contract): dimension i with i + dh/2, Llama's
rotate_half as in Hugging Face, GPT-NeoX style; interleaved: dimension 2i with 2i + 1,
Meta's Llama reference code (view_as_complex), GPT-J style."""
import torch


def positions(ctx, shape, dtype, max_offset=40, top=0):
    """(B, T) int64 absolute positions: a distinct cache offset per row, then arange(T).
    With `top` > 0 the largest offset is top - T + 1, so the last position is top (a long cache)."""
    B, T = shape
    if top:
        hi = max(top - T + 1, B)
        offsets = [hi] + ctx.rng.sample(range(0, hi), B - 1)
    else:
        offsets = ctx.rng.sample(range(0, max(max_offset, B)), B)
    off = torch.tensor(offsets, dtype=torch.int64)
    return off[:, None] + torch.arange(T, dtype=torch.int64)[None, :]


def _angles(x, pos, base, angle_dtype, exponent_step=2):
    """(B, 1, T, dh/2) angles pos * base^(-exponent_step*i/dh), computed in angle_dtype."""
    dh = x.shape[-1]
    i = torch.arange(0, dh // 2, device=x.device, dtype=angle_dtype)
    inv_freq = 1.0 / (base ** (exponent_step * i / dh))  # (dh/2,)
    return (pos.to(angle_dtype)[:, None, :, None] * inv_freq)  # (B, 1, T, dh/2)


def _rotate(x, theta, pairing):
    cos, sin = theta.cos().to(x.dtype), theta.sin().to(x.dtype)
    if pairing == "interleaved":
        x1, x2 = x[..., 0::2], x[..., 1::2]  # pairs (2i, 2i + 1)
        return torch.stack([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1).flatten(-2)
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]  # pairs (i, i + dh/2)
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)


def apply_rope(x, pos, base=10000.0, *, pairing="half"):
    theta = _angles(x, pos, base, torch.float32)  # angles in float32 at least: fp16 cannot hold pos * freq
    return _rotate(x, theta, pairing)


def trap_arange_positions(x, pos, base=10000.0, *, pairing="half"):
    B, H, T, dh = x.shape
    local = torch.arange(T, device=x.device).expand(B, T)  # the cache offset of each row is lost
    return apply_rope(x, local, base, pairing=pairing)


def trap_exponent_i_over_dh(x, pos, base=10000.0, *, pairing="half"):
    theta = _angles(x, pos, base, torch.float32, exponent_step=1)  # base^(-i/dh): frequencies too close together
    return _rotate(x, theta, pairing)


def trap_angles_in_x_dtype(x, pos, base=10000.0, *, pairing="half"):
    dtype = x.dtype if x.dtype != torch.float64 else torch.float64
    theta = _angles(x, pos, base, dtype)  # pos * inv_freq rounded to fp16: radians lost at large positions
    return _rotate(x, theta, pairing)


def trap_interleaved_pairs(x, pos, base=10000.0):
    """Meta's / GPT-J's interleaved pairing where the contract's half split is asked for."""
    return apply_rope(x, pos, base, pairing="interleaved")


def trap_half_split(x, pos, base=10000.0):
    """Hugging Face's / GPT-NeoX's half split where the interleaved pairing is asked for."""
    return apply_rope(x, pos, base, pairing="half")
