"""Reference and traps for patchify: images to ViT patch tokens.

Every function takes the variant keywords (drills/README.md, "Variants"): `content` is the order
inside a token, cpp for (C, P, P) (a Conv2d patch embedding's weight order, the contract) or ppc
for (P, P, C) (MAE's patchify); `layout` is the images', nchw (B, C, H, W) (the contract) or nhwc
(B, H, W, C) (Flax's ViT). The defaults are the contract; the traps take channels-last images to
(B, C, H, W) first, then make their mistake."""
import torch

# where each content order puts the axes of (B, C, gh, P, gw, P): grid axes first, content last
_ORDER = {"cpp": (0, 2, 4, 1, 3, 5), "ppc": (0, 2, 4, 3, 5, 1)}
# the same with the two pixel axes swapped (every patch transposed)
_TRANSPOSED = {"cpp": (0, 2, 4, 1, 5, 3), "ppc": (0, 2, 4, 5, 3, 1)}


def _nchw(images, layout):
    """images as (B, C, H, W)."""
    return images.permute(0, 3, 1, 2) if layout == "nhwc" else images


def patchify(images, P: int, *, content="cpp", layout="nchw"):
    images = _nchw(images, layout)
    B, C, H, W = images.shape
    gh, gw = H // P, W // P  # patches down, patches across
    x = images.reshape(B, C, gh, P, gw, P)  # (B, C, gh, P, gw, P)
    x = x.permute(*_ORDER[content])  # (B, gh, gw, C, P, P) or (B, gh, gw, P, P, C)
    return x.reshape(B, gh * gw, C * P * P)  # (B, N, C*P*P)


def trap_no_permute(images, P: int, *, layout="nchw"):
    if layout == "nhwc":  # (B, H, W, C) poured straight into tokens: runs of pixels along a row
        B, H, W, C = images.shape
        return images.reshape(B, (H // P) * (W // P), C * P * P)
    B, C, H, W = images.shape
    x = images.reshape(B, C, H // P, P, W // P, P)
    return x.reshape(B, (H // P) * (W // P), C * P * P)  # right shape, strips instead of squares


def trap_channels_last_content(images, P: int, *, layout="nchw"):
    """(P, P, C) where the contract asks for (C, P, P)."""
    return patchify(images, P, content="ppc", layout=layout)


def trap_channels_first_content(images, P: int, *, layout="nchw"):
    """(C, P, P), the contract's order, where the variant asks for MAE's (P, P, C)."""
    return patchify(images, P, content="cpp", layout=layout)


def trap_square_grid(images, P: int, *, content="cpp", layout="nchw"):
    images = _nchw(images, layout)
    B, C, H, W = images.shape
    G = H // P  # one grid size for both axes: only right when H == W
    x = images.reshape(B, C, G, P, G, P).permute(*_ORDER[content])
    return x.reshape(B, G * G, C * P * P)


def trap_column_major_grid(images, P: int, *, content="cpp", layout="nchw"):
    images = _nchw(images, layout)
    B, C, H, W = images.shape
    order = list(_ORDER[content])
    order[1], order[2] = order[2], order[1]  # (B, gw, gh, ...): the grid walked column by column
    x = images.reshape(B, C, H // P, P, W // P, P).permute(*order)
    return x.reshape(B, -1, C * P * P)


def trap_transposed_patch(images, P: int, *, content="cpp", layout="nchw"):
    images = _nchw(images, layout)
    B, C, H, W = images.shape
    x = images.reshape(B, C, H // P, P, W // P, P).permute(*_TRANSPOSED[content])  # pixel column before row
    return x.reshape(B, -1, C * P * P)
