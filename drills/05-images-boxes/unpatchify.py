"""Reference and traps for unpatchify: patch tokens back to images.

Every function takes the variant keywords (drills/README.md, "Variants"): `content` is the order
inside a token, cpp for (C, P, P) (the contract, the order of patchify's tokens) or ppc for
(P, P, C) (MAE's unpatchify); `layout` is the images', nchw (B, C, H, W) (the contract) or nhwc
(B, H, W, C). The defaults are the contract. Each permutation is written as the axis names it
produces, so one line serves every convention."""
import math

import torch

# where each axis of the reshaped tokens sits: b batch, h grid row, w grid column, c channel,
# p pixel row, q pixel column
_AXES = {"cpp": "bhwcpq", "ppc": "bhwpqc"}
# the image split into (grid, pixel) axes: (B, C, gh, P, gw, P) or (B, gh, P, gw, P, C)
_IMAGE = {"nchw": "bchpwq", "nhwc": "bhpwqc"}


def _forward(content, layout):
    """patchify's permutation, from the split image to the reshaped tokens."""
    return tuple(_IMAGE[layout].index(a) for a in _AXES[content])


def _image(x, layout, C, H, W):
    """The permuted (grid, pixel) axes merged into the image."""
    return x.reshape(x.shape[0], C, H, W) if layout == "nchw" else x.reshape(x.shape[0], H, W, C)


def _tokens_grid(tokens, C, P, gh, gw, content):
    """tokens as (B, gh, gw, C, P, P) or (B, gh, gw, P, P, C)."""
    inner = (C, P, P) if content == "cpp" else (P, P, C)
    return tokens.reshape(tokens.shape[0], gh, gw, *inner)


def _to(content, target):
    """The permutation that takes the reshaped tokens to the axes named by `target`."""
    return tuple(_AXES[content].index(a) for a in target)


def _swap(names, a, b):
    return names.translate(str.maketrans(a + b, b + a))


def unpatchify(tokens, C: int, H: int, W: int, P: int, *, content="cpp", layout="nchw"):
    gh, gw = H // P, W // P
    x = _tokens_grid(tokens, C, P, gh, gw, content)  # (B, gh, gw, C, P, P) or (B, gh, gw, P, P, C)
    x = x.permute(*_to(content, _IMAGE[layout]))  # (B, C, gh, P, gw, P) or (B, gh, P, gw, P, C): patchify's inverse
    return _image(x, layout, C, H, W)


def _patchify(images, P, content="cpp", layout="nchw"):
    if layout == "nhwc":
        images = images.permute(0, 3, 1, 2)
    B, C, H, W = images.shape
    x = images.reshape(B, C, H // P, P, W // P, P).permute(*_forward(content, "nchw"))
    return x.reshape(B, (H // P) * (W // P), C * P * P)


def round_trip(call, got, options):
    """patchify(unpatchify(tokens)) must give the tokens back exactly, in the content order the
    oracle's answer round-trips under (the variant's)."""
    if not isinstance(got, torch.Tensor):
        return None
    args = call.arg_dict()
    tokens, P = args["tokens"], args["P"]
    layout = "nhwc" if tuple(call.function.returns[0].shape) == ("B", "H", "W", "C") else "nchw"
    content = "cpp"
    want = call.expected
    if isinstance(want, torch.Tensor):
        for order in _AXES:
            if torch.equal(_patchify(want.to(tokens.dtype), P, order, layout), tokens):
                content = order
                break
    try:
        back = _patchify(got.to(tokens.dtype), P, content, layout)
    except RuntimeError:
        return "patchify of the result does not even have the tokens' shape"
    if back.shape != tokens.shape or not torch.equal(back, tokens):
        return "the round trip is not exact: patchify(unpatchify(tokens)) != tokens"
    return None


def trap_forward_permutation(tokens, C: int, H: int, W: int, P: int, *, content="cpp", layout="nchw"):
    x = _tokens_grid(tokens, C, P, H // P, W // P, content).permute(*_forward(content, layout))  # the forward one again
    return _image(x, layout, C, H, W)


def trap_no_permute(tokens, C: int, H: int, W: int, P: int, *, layout="nchw"):
    return _image(tokens, layout, C, H, W)


def trap_transposed_patch(tokens, C: int, H: int, W: int, P: int, *, content="cpp", layout="nchw"):
    target = _swap(_IMAGE[layout], "p", "q")  # pixel axes swapped
    x = _tokens_grid(tokens, C, P, H // P, W // P, content).permute(*_to(content, target))
    return _image(x, layout, C, H, W)


def trap_column_major_grid(tokens, C: int, H: int, W: int, P: int, *, content="cpp", layout="nchw"):
    x = _tokens_grid(tokens, C, P, W // P, H // P, content)  # the sequence read as (gw, gh): column by column
    x = x.permute(*_to(content, _swap(_IMAGE[layout], "h", "w")))  # the first grid axis (W // P) as the grid column
    return _image(x, layout, C, H, W)


def trap_square_grid(tokens, C: int, H: int, W: int, P: int, *, content="cpp", layout="nchw"):
    N = tokens.shape[1]
    h = w = int(math.sqrt(N))  # assumes a square grid of patches
    x = _tokens_grid(tokens, C, P, h, w, content).permute(*_to(content, _IMAGE[layout]))
    return _image(x, layout, C, h * P, w * P)


def trap_grid_axes_swapped(tokens, C: int, H: int, W: int, P: int, *, content="cpp", layout="nchw"):
    target = _swap(_IMAGE[layout], "h", "w")  # (B, C, gw, P, gh, P) or (B, gw, P, gh, P, C)
    x = _tokens_grid(tokens, C, P, H // P, W // P, content).permute(*_to(content, target))
    return _image(x, layout, C, H, W)


def trap_blocks_not_interleaved(tokens, C: int, H: int, W: int, P: int, *, content="cpp", layout="nchw"):
    target = {"nchw": "bchwpq", "nhwc": "bhwpqc"}[layout]  # grid axes together, then pixel axes
    x = _tokens_grid(tokens, C, P, H // P, W // P, content).permute(*_to(content, target))
    return _image(x, layout, C, H, W)


def trap_channels_first_content(tokens, C: int, H: int, W: int, P: int, *, layout="nchw"):
    """Tokens read in the contract's (C, P, P) order where the variant's are MAE's (P, P, C)."""
    return unpatchify(tokens, C, H, W, P, content="cpp", layout=layout)
