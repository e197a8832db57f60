"""Reference and traps for unpatchify: patch tokens back to images.

Every function takes the variant keyword (drills/README.md, "Variants"): `content` is the order
inside a token, cpp for (C, P, P) (the contract, the order of patchify's tokens) or ppc for
(P, P, C) (MAE's unpatchify). The default is the contract."""
import math

import torch

# where each axis of the reshaped tokens sits: b batch, h grid row, w grid column, c channel,
# p pixel row, q pixel column
_AXES = {"cpp": "bhwcpq", "ppc": "bhwpqc"}
# patchify's forward permutation of (B, C, gh, P, gw, P) for each content order
_FORWARD = {"cpp": (0, 2, 4, 1, 3, 5), "ppc": (0, 2, 4, 3, 5, 1)}


def _tokens_grid(tokens, C, P, gh, gw, content):
    """tokens as (B, gh, gw, C, P, P) or (B, gh, gw, P, P, C)."""
    inner = (C, P, P) if content == "cpp" else (P, P, C)
    return tokens.reshape(tokens.shape[0], gh, gw, *inner)


def _to(content, target):
    """The permutation that takes the reshaped tokens to the axes named by `target`."""
    return tuple(_AXES[content].index(a) for a in target)


def unpatchify(tokens, C: int, H: int, W: int, P: int, *, content="cpp"):
    B = tokens.shape[0]
    gh, gw = H // P, W // P
    x = _tokens_grid(tokens, C, P, gh, gw, content)  # (B, gh, gw, C, P, P) or (B, gh, gw, P, P, C)
    x = x.permute(*_to(content, "bchpwq"))  # (B, C, gh, P, gw, P): the inverse of patchify's permute
    return x.reshape(B, C, H, W)


def _patchify(images, P, content="cpp"):
    B, C, H, W = images.shape
    x = images.reshape(B, C, H // P, P, W // P, P).permute(*_FORWARD[content])
    return x.reshape(B, (H // P) * (W // P), C * P * P)


def round_trip(call, got, options):
    """patchify(unpatchify(tokens)) must give the tokens back exactly, in the content order the
    oracle's answer round-trips under (the variant's)."""
    if not isinstance(got, torch.Tensor):
        return None
    args = call.arg_dict()
    tokens, P = args["tokens"], args["P"]
    content = "cpp"
    want = call.expected
    if isinstance(want, torch.Tensor):
        for order in _FORWARD:
            if torch.equal(_patchify(want.to(tokens.dtype), P, order), tokens):
                content = order
                break
    try:
        back = _patchify(got.to(tokens.dtype), P, content)
    except RuntimeError:
        return "patchify of the result does not even have the tokens' shape"
    if back.shape != tokens.shape or not torch.equal(back, tokens):
        return "the round trip is not exact: patchify(unpatchify(tokens)) != tokens"
    return None


def trap_forward_permutation(tokens, C: int, H: int, W: int, P: int, *, content="cpp"):
    x = _tokens_grid(tokens, C, P, H // P, W // P, content).permute(*_FORWARD[content])  # the forward one again
    return x.reshape(tokens.shape[0], C, H, W)


def trap_no_permute(tokens, C: int, H: int, W: int, P: int):
    return tokens.reshape(tokens.shape[0], C, H, W)


def trap_transposed_patch(tokens, C: int, H: int, W: int, P: int, *, content="cpp"):
    x = _tokens_grid(tokens, C, P, H // P, W // P, content).permute(*_to(content, "bchqwp"))  # pixel axes swapped
    return x.reshape(tokens.shape[0], C, H, W)


def trap_column_major_grid(tokens, C: int, H: int, W: int, P: int, *, content="cpp"):
    x = _tokens_grid(tokens, C, P, W // P, H // P, content)  # the sequence read as (gw, gh): column by column
    x = x.permute(*_to(content, "bcwphq"))  # the first grid axis (of size W // P) placed as the grid column
    return x.reshape(tokens.shape[0], C, H, W)


def trap_square_grid(tokens, C: int, H: int, W: int, P: int, *, content="cpp"):
    B, N, _ = tokens.shape
    h = w = int(math.sqrt(N))  # assumes a square grid of patches
    x = _tokens_grid(tokens, C, P, h, w, content).permute(*_to(content, "bchpwq"))
    return x.reshape(B, C, h * P, w * P)


def trap_grid_axes_swapped(tokens, C: int, H: int, W: int, P: int, *, content="cpp"):
    x = _tokens_grid(tokens, C, P, H // P, W // P, content).permute(*_to(content, "bcwphq"))  # (B, C, gw, P, gh, P)
    return x.reshape(tokens.shape[0], C, H, W)


def trap_blocks_not_interleaved(tokens, C: int, H: int, W: int, P: int, *, content="cpp"):
    x = _tokens_grid(tokens, C, P, H // P, W // P, content).permute(*_to(content, "bchwpq"))  # (B, C, gh, gw, P, P)
    return x.reshape(tokens.shape[0], C, H, W)


def trap_channels_first_content(tokens, C: int, H: int, W: int, P: int):
    """Tokens read in the contract's (C, P, P) order where the variant's are MAE's (P, P, C)."""
    return unpatchify(tokens, C, H, W, P, content="cpp")
