"""Reference, inputs and traps for head-split.

split_heads, merge_heads and the traps take the variant keywords (drills/README.md,
"Variants"): `layout`, the heads' layout (bhtd: (B, H, T, dh), heads first as SDPA wants them,
the contract; bthd: (B, T, H, dh), time first as flash-attn takes them), and `x_layout`, the
model-width tensor's (btd: (B, T, d), the contract; tbd: (T, B, d), time first as
nn.MultiheadAttention's default and fairseq keep it)."""
import torch


def _to_bthd(heads, x_layout):
    """(B, T, H, dh) from the split of a (B, T, d) or (T, B, d) tensor (and back: the swap is its own inverse)."""
    return heads.transpose(0, 1) if x_layout == "tbd" else heads


def split_heads(x, H: int, *, layout="bhtd", x_layout="btd"):
    heads = x.reshape(*x.shape[:2], H, x.shape[-1] // H)  # (B, T, H, dh), or (T, B, H, dh) under tbd
    heads = _to_bthd(heads, x_layout)  # (B, T, H, dh)
    return heads if layout == "bthd" else heads.transpose(1, 2)  # (B, H, T, dh)


def merge_heads(x, *, layout="bhtd", x_layout="btd"):
    heads = x if layout == "bthd" else x.transpose(1, 2)  # (B, T, H, dh)
    heads = _to_bthd(heads, x_layout)  # (B, T, H, dh), or (T, B, H, dh) under tbd
    return heads.reshape(*heads.shape[:2], heads.shape[2] * heads.shape[3])  # (B, T, d) or (T, B, d)


# ----------------------------------------------------------------- inputs


def model_input(ctx, shape, dtype, **options):
    """x of shape (B, T, d) (or (T, B, d)), kept in ctx.shared so merge_heads gets the same data split."""
    x = torch.randn(shape, generator=ctx.gen, dtype=torch.float32).to(dtype)
    ctx.shared["x"] = x
    return x


def split_input(ctx, shape, dtype, layout="bhtd", x_layout="btd"):
    """merge_heads' input: the case's model-width tensor split into heads, so the round trip is checked exactly."""
    B, H, T, dh = shape if layout == "bhtd" else (shape[0], shape[2], shape[1], shape[3])
    x = ctx.shared.get("x")
    if x is None:
        x = model_input(ctx, (B, T, H * dh) if x_layout == "btd" else (T, B, H * dh), dtype)
    return split_heads(x, H, layout=layout, x_layout=x_layout).contiguous()


# ------------------------------------------------------------------- traps


def _bt(x, x_layout):
    """(B, T) of a model-width tensor."""
    return (x.shape[1], x.shape[0]) if x_layout == "tbd" else (x.shape[0], x.shape[1])


def trap_split_straight_reshape(x, H: int, *, x_layout="btd"):
    """Reshapes the model-width tensor straight to (B, H, T, dh): right shape, positions and heads mixed."""
    B, T = _bt(x, x_layout)
    return x.reshape(B, H, T, x.shape[-1] // H)


def trap_split_no_transpose(x, H: int, *, x_layout="btd"):
    """Stops at (B, T, H, dh) and never moves the head axis forward."""
    return split_heads(x, H, layout="bthd", x_layout=x_layout)


def trap_split_dh_major(x, H: int, *, layout="bhtd", x_layout="btd"):
    """Splits d as (dh, H) instead of (H, dh): every head gets a strided slice of the features."""
    heads = _to_bthd(x.reshape(*x.shape[:2], x.shape[-1] // H, H).transpose(2, 3), x_layout)  # (B, T, H, dh)
    return heads if layout == "bthd" else heads.transpose(1, 2)


def trap_merge_straight_reshape(x, *, x_layout="btd"):
    """Reshapes (B, H, T, dh) straight to (B, T, d) (or (T, B, d)) without the transpose back."""
    B, H, T, dh = x.shape
    return x.reshape(B, T, H * dh) if x_layout == "btd" else x.reshape(T, B, H * dh)


def trap_merge_view(x, *, x_layout="btd"):
    """Moves the axes into place, then .view(): the moved tensor is not contiguous, so view raises."""
    B, H, T, dh = x.shape
    if x_layout == "tbd":
        return x.permute(2, 0, 1, 3).view(T, B, H * dh)
    return x.transpose(1, 2).view(B, T, H * dh)


def trap_merge_dh_major(x, *, layout="bhtd", x_layout="btd"):
    """Moves H last before flattening, so features come out as (dh, H) instead of (H, dh)."""
    heads = _to_bthd((x if layout == "bthd" else x.transpose(1, 2)).transpose(2, 3), x_layout)  # (., ., dh, H)
    return heads.reshape(*heads.shape[:2], heads.shape[2] * heads.shape[3])


def trap_split_heads_first(x, H: int, *, x_layout="btd"):
    """The contract's (B, H, T, dh) where the variant asks for time first."""
    return split_heads(x, H, x_layout=x_layout)


def trap_merge_heads_first(x, *, x_layout="btd"):
    """The contract's merge, reading a (B, T, H, dh) input as (B, H, T, dh)."""
    return merge_heads(x, x_layout=x_layout)


def trap_split_batch_first(x, H: int, *, layout="bhtd"):
    """The contract's (B, T, d) reading of a (T, B, d) input."""
    return split_heads(x, H, layout=layout)


def trap_merge_batch_first(x, *, layout="bhtd"):
    """The contract's (B, T, d) result where the variant asks for (T, B, d)."""
    return merge_heads(x, layout=layout)
