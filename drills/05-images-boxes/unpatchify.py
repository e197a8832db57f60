"""Reference and traps for unpatchify: patch tokens back to images."""
import math

import torch


def unpatchify(tokens, C: int, H: int, W: int, P: int):
    B = tokens.shape[0]
    gh, gw = H // P, W // P
    x = tokens.reshape(B, gh, gw, C, P, P)  # (B, gh, gw, C, P, P)
    x = x.permute(0, 3, 1, 4, 2, 5)  # (B, C, gh, P, gw, P): inverse of (0, 2, 4, 1, 3, 5)
    return x.reshape(B, C, H, W)


def _patchify(images, P):
    B, C, H, W = images.shape
    x = images.reshape(B, C, H // P, P, W // P, P).permute(0, 2, 4, 1, 3, 5)
    return x.reshape(B, (H // P) * (W // P), C * P * P)


def round_trip(call, got, options):
    """patchify(unpatchify(tokens)) must give the tokens back exactly."""
    if not isinstance(got, torch.Tensor):
        return None
    args = call.arg_dict()
    tokens, P = args["tokens"], args["P"]
    try:
        back = _patchify(got.to(tokens.dtype), P)
    except RuntimeError:
        return "patchify of the result does not even have the tokens' shape"
    if back.shape != tokens.shape or not torch.equal(back, tokens):
        return "the round trip is not exact: patchify(unpatchify(tokens)) != tokens"
    return None


def trap_forward_permutation(tokens, C: int, H: int, W: int, P: int):
    B = tokens.shape[0]
    x = tokens.reshape(B, H // P, W // P, C, P, P).permute(0, 2, 4, 1, 3, 5)  # the forward permutation again
    return x.reshape(B, C, H, W)


def trap_no_permute(tokens, C: int, H: int, W: int, P: int):
    return tokens.reshape(tokens.shape[0], C, H, W)


def trap_transposed_patch(tokens, C: int, H: int, W: int, P: int):
    B = tokens.shape[0]
    x = tokens.reshape(B, H // P, W // P, C, P, P).permute(0, 3, 1, 5, 2, 4)  # pixel axes swapped
    return x.reshape(B, C, H, W)


def trap_column_major_grid(tokens, C: int, H: int, W: int, P: int):
    B = tokens.shape[0]
    x = tokens.reshape(B, W // P, H // P, C, P, P).permute(0, 3, 2, 4, 1, 5)  # grid read column by column
    return x.reshape(B, C, H, W)


def trap_square_grid(tokens, C: int, H: int, W: int, P: int):
    B, N, _ = tokens.shape
    h = w = int(math.sqrt(N))  # assumes a square grid of patches
    x = tokens.reshape(B, h, w, C, P, P).permute(0, 3, 1, 4, 2, 5)
    return x.reshape(B, C, h * P, w * P)


def trap_grid_axes_swapped(tokens, C: int, H: int, W: int, P: int):
    B = tokens.shape[0]
    x = tokens.reshape(B, H // P, W // P, C, P, P).permute(0, 3, 2, 4, 1, 5)  # (B, C, gw, P, gh, P)
    return x.reshape(B, C, H, W)


def trap_blocks_not_interleaved(tokens, C: int, H: int, W: int, P: int):
    B = tokens.shape[0]
    x = tokens.reshape(B, H // P, W // P, C, P, P).permute(0, 3, 1, 2, 4, 5)  # (B, C, gh, gw, P, P)
    return x.reshape(B, C, H, W)
