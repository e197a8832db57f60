"""Reference and traps for rope.

Every function takes the variant keyword `pairing` (drills/README.md, "Variants"): which
dimensions rotate together. half (the contract): dimension i with i + dh/2, Llama's
rotate_half as in Hugging Face, GPT-NeoX style; interleaved: dimension 2i with 2i + 1,
Meta's Llama reference code (view_as_complex), GPT-J style."""
import torch

from grader.judge.compare import Tolerance, compare_value

# per dtype (atol, rtol, c): |got - want| <= atol + rtol * |want| + c * pos * |pair|. Angles computed in float32
# (what Hugging Face does) are off by up to about 6e-8 * pos radians (2.4e-4 at position 4095, measured against
# float64), which moves an output by that many radians times the norm of its pair; c allows twice that.
_TOL = {torch.float32: (1e-4, 1e-4, 1.2e-7), torch.float16: (5e-3, 1e-2, 1.2e-7), torch.float64: (1e-10, 1e-8, 1e-15)}


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


def _pair_norm(x, pairing):
    """|(x1, x2)| of each element's pair, in x's shape."""
    x = x.double()
    if pairing == "interleaved":
        r = (x[..., 0::2] ** 2 + x[..., 1::2] ** 2).sqrt()
        return torch.stack([r, r], dim=-1).flatten(-2)
    half = x.shape[-1] // 2
    r = (x[..., :half] ** 2 + x[..., half:] ** 2).sqrt()
    return torch.cat([r, r], dim=-1)


def check_rope(call, got, *, pairing="half"):
    """Shape and dtype, then values within a tolerance that grows with the position: float32 angles are
    exact to about 6e-8 * pos radians, so a long cache widens what counts as right, in float32 and fp16."""
    ret = call.function.returns[0]
    first = compare_value(ret, call.expected, got, call, {str(call.dtype).replace("torch.", ""): Tolerance(float("inf"), 0.0)})
    if first.verdict != "pass":
        return first.message
    x, pos = call.args[0], call.args[1]
    want, g = call.expected.double(), got.double()
    bad = ~torch.isfinite(g)
    if bool(bad.any()):
        first_bad = [int(v) for v in bad.nonzero()[0]]
        return f"non-finite values at {int(bad.sum())} of {g.numel()} positions; first at {first_bad}"
    atol, rtol, c = _TOL.get(call.dtype, _TOL[torch.float32])
    limit = atol + rtol * want.abs() + c * pos.double().abs()[:, None, :, None] * _pair_norm(x, pairing)
    err = (g - want).abs()
    over = err > limit
    if bool(over.any()):
        flat = int(torch.argmax(torch.where(over, err, torch.zeros_like(err))))
        idx = list(torch.unravel_index(torch.tensor(flat), g.shape))
        at = tuple(int(i) for i in idx)
        return (f"values differ at {int(over.sum())} of {g.numel()} positions; worst at {list(at)}: "
                f"expected {float(want[at]):.6g}, got {float(g[at]):.6g}")
    return None


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
