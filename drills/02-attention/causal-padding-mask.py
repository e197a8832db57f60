"""Reference and traps for causal-padding-mask."""
import torch


def combined_keep_mask(pad_mask):
    B, T = pad_mask.shape
    causal = torch.ones(T, T, dtype=torch.bool, device=pad_mask.device).tril()  # (T, T): key j <= query i
    keys = pad_mask.bool()[:, None, None, :]  # (B, 1, 1, T): real keys
    return causal[None, None] & keys  # (B, 1, T, T)


def pad_mask_gen(ctx, shape, dtype, padding="right"):
    """A (B, T) mask in the case's mask dtype: right padding (default), left, random (pads anywhere) or none."""
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
    return mask.to(dtype)


def trap_triu(pad_mask):
    B, T = pad_mask.shape
    causal = torch.ones(T, T, dtype=torch.bool).triu()
    return causal[None, None] & pad_mask.bool()[:, None, None, :]


def trap_pad_on_queries(pad_mask):
    B, T = pad_mask.shape
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    return causal[None, None] & pad_mask.bool()[:, None, :, None]


def trap_no_head_axis(pad_mask):
    B, T = pad_mask.shape
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    return causal[None] & pad_mask.bool()[:, None, :]  # (B, T, T)


def trap_strict_causal(pad_mask):
    B, T = pad_mask.shape
    causal = torch.ones(T, T, dtype=torch.bool).tril(diagonal=-1)
    return causal[None, None] & pad_mask.bool()[:, None, None, :]


def trap_no_causal(pad_mask):
    B, T = pad_mask.shape
    return pad_mask.bool()[:, None, None, :].expand(B, 1, T, T).clone()


def trap_no_padding(pad_mask):
    B, T = pad_mask.shape
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    return causal.expand(B, 1, T, T).clone()


def trap_pad_both_axes(pad_mask):
    B, T = pad_mask.shape
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    m = pad_mask.bool()
    return causal[None, None] & m[:, None, None, :] & m[:, None, :, None]
