"""Reference, inputs and traps for head-split.

split_heads and merge_heads take the variant keyword `layout` (drills/README.md, "Variants"):
bhtd, heads first as SDPA wants them (the contract), or bthd, time first as flash-attn takes them."""
import torch


def split_heads(x, H: int, *, layout="bhtd"):
    B, T, d = x.shape
    heads = x.reshape(B, T, H, d // H)  # (B, T, H, dh)
    return heads if layout == "bthd" else heads.transpose(1, 2)  # (B, H, T, dh)


def merge_heads(x, *, layout="bhtd"):
    if layout == "bthd":
        B, T, H, dh = x.shape
        return x.reshape(B, T, H * dh)  # (B, T, H, dh) -> (B, T, d)
    B, H, T, dh = x.shape
    return x.transpose(1, 2).reshape(B, T, H * dh)  # (B, T, H, dh) -> (B, T, d)


# ----------------------------------------------------------------- inputs


def model_input(ctx, shape, dtype, **options):
    """x of shape (B, T, d), kept in ctx.shared so merge_heads gets the same data split."""
    x = torch.randn(shape, generator=ctx.gen, dtype=torch.float32).to(dtype)
    ctx.shared["x"] = x
    return x


def split_input(ctx, shape, dtype, layout="bhtd"):
    """merge_heads' input: the case's (B, T, d) tensor split into heads, so the round trip is checked exactly."""
    B, H, T, dh = shape if layout == "bhtd" else (shape[0], shape[2], shape[1], shape[3])
    x = ctx.shared.get("x")
    if x is None:
        x = model_input(ctx, (B, T, H * dh), dtype)
    return split_heads(x, H, layout=layout).contiguous()


# ------------------------------------------------------------------- traps


def trap_split_straight_reshape(x, H: int):
    """Reshapes (B, T, d) straight to (B, H, T, dh): right shape, positions and heads mixed."""
    B, T, d = x.shape
    return x.reshape(B, H, T, d // H)


def trap_split_no_transpose(x, H: int):
    """Stops at (B, T, H, dh) and never moves the head axis forward."""
    B, T, d = x.shape
    return x.reshape(B, T, H, d // H)


def trap_split_dh_major(x, H: int, *, layout="bhtd"):
    """Splits d as (dh, H) instead of (H, dh): every head gets a strided slice of the features."""
    B, T, d = x.shape
    if layout == "bthd":
        return x.reshape(B, T, d // H, H).transpose(2, 3)
    return x.reshape(B, T, d // H, H).permute(0, 3, 1, 2)


def trap_merge_straight_reshape(x):
    """Reshapes (B, H, T, dh) straight to (B, T, d) without the transpose back."""
    B, H, T, dh = x.shape
    return x.reshape(B, T, H * dh)


def trap_merge_view(x):
    """transpose(1, 2) then .view(): the transposed tensor is not contiguous, so view raises."""
    B, H, T, dh = x.shape
    return x.transpose(1, 2).view(B, T, H * dh)


def trap_merge_dh_major(x, *, layout="bhtd"):
    """Moves H last before flattening, so features come out as (dh, H) instead of (H, dh)."""
    if layout == "bthd":
        B, T, H, dh = x.shape
        return x.transpose(2, 3).reshape(B, T, H * dh)
    B, H, T, dh = x.shape
    return x.permute(0, 2, 3, 1).reshape(B, T, H * dh)


def trap_split_heads_first(x, H: int):
    """The contract's (B, H, T, dh) where the variant asks for time first."""
    return split_heads(x, H)


def trap_merge_heads_first(x):
    """The contract's merge, reading a (B, T, H, dh) input as (B, H, T, dh)."""
    return merge_heads(x)
