"""Reference and traps for causal-padding-mask.

Every function takes the variant keywords (drills/README.md, "Variants"): `mask` says what
pad_mask holds (keep: 1/True on real tokens; pad: 1/True on padding) and `out` what comes back
(keep: True = may attend; hide: True = hidden; additive: float32 0.0 / finfo.min). The defaults
are the contract."""
import torch


def _real(pad_mask, mask):
    """(B, T) bool: True on real tokens, whichever way pad_mask points."""
    return pad_mask.bool() if mask == "keep" else ~pad_mask.bool()


def _emit(keep, out):
    """The keep mask in the form the variant asks for."""
    if out == "hide":
        return ~keep
    if out == "additive":
        return torch.zeros(keep.shape, dtype=torch.float32, device=keep.device).masked_fill(
            ~keep, torch.finfo(torch.float32).min)
    return keep


def combined_keep_mask(pad_mask, *, mask="keep", out="keep"):
    B, T = pad_mask.shape
    causal = torch.ones(T, T, dtype=torch.bool, device=pad_mask.device).tril()  # (T, T): key j <= query i
    keys = _real(pad_mask, mask)[:, None, None, :]  # (B, 1, 1, T): real keys
    return _emit(causal[None, None] & keys, out)  # (B, 1, T, T)


def pad_mask_gen(ctx, shape, dtype, padding="right", true_means="keep"):
    """A (B, T) mask in the case's mask dtype: right padding (default), left, random (pads anywhere) or none;
    1/True on real tokens, or on padding with true_means="pad"."""
    padding = str(ctx.params.get("padding", padding))
    B, T = shape
    lens = [ctx.rng.randint(1, T) for _ in range(B)]
    if padding == "none":
        lens = [T] * B
    elif B > 1:
        lens[0] = T
        lens[-1] = ctx.rng.randint(1, max(1, T // 2))
    elif T > 1:
        lens[0] = ctx.rng.randint(1, T - 1)
    mask = torch.zeros(B, T, dtype=torch.bool)
    for b, n in enumerate(lens):
        if padding == "left":
            mask[b, T - n:] = True
        elif padding == "random":  # pad, real, pad, then random: a real token between pads
            mask[b] = torch.rand(T, generator=ctx.gen) < 0.5
            mask[b, :3] = torch.tensor([False, True, False])[:T]
        else:
            mask[b, :n] = True
    return (~mask if true_means == "pad" else mask).to(dtype)


def trap_triu(pad_mask, *, mask="keep", out="keep"):
    B, T = pad_mask.shape
    causal = torch.ones(T, T, dtype=torch.bool).triu()
    return _emit(causal[None, None] & _real(pad_mask, mask)[:, None, None, :], out)


def trap_pad_on_queries(pad_mask, *, mask="keep", out="keep"):
    B, T = pad_mask.shape
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    return _emit(causal[None, None] & _real(pad_mask, mask)[:, None, :, None], out)


def trap_no_head_axis(pad_mask, *, mask="keep", out="keep"):
    B, T = pad_mask.shape
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    return _emit(causal[None] & _real(pad_mask, mask)[:, None, :], out)  # (B, T, T)


def trap_strict_causal(pad_mask, *, mask="keep", out="keep"):
    B, T = pad_mask.shape
    causal = torch.ones(T, T, dtype=torch.bool).tril(diagonal=-1)
    return _emit(causal[None, None] & _real(pad_mask, mask)[:, None, None, :], out)


def trap_no_causal(pad_mask, *, mask="keep", out="keep"):
    B, T = pad_mask.shape
    return _emit(_real(pad_mask, mask)[:, None, None, :].expand(B, 1, T, T).clone(), out)


def trap_no_padding(pad_mask, *, mask="keep", out="keep"):
    B, T = pad_mask.shape
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    return _emit(causal.expand(B, 1, T, T).clone(), out)


def trap_pad_both_axes(pad_mask, *, mask="keep", out="keep"):
    B, T = pad_mask.shape
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    m = _real(pad_mask, mask)
    return _emit(causal[None, None] & m[:, None, None, :] & m[:, None, :, None], out)


def trap_keep_convention(pad_mask, *, out="keep"):
    """pad_mask read the contract's way (1/True = real) where it means padding."""
    return combined_keep_mask(pad_mask, mask="keep", out=out)


def trap_keep_output(pad_mask, *, mask="keep"):
    """The contract's boolean keep mask where the variant asks for another form."""
    return combined_keep_mask(pad_mask, mask=mask, out="keep")
