"""Reference and traps for patchify: images to ViT patch tokens."""
import torch


def patchify(images, P: int):
    B, C, H, W = images.shape
    gh, gw = H // P, W // P  # patches down, patches across
    x = images.reshape(B, C, gh, P, gw, P)  # (B, C, gh, P, gw, P)
    x = x.permute(0, 2, 4, 1, 3, 5)  # (B, gh, gw, C, P, P): grid axes first, content last
    return x.reshape(B, gh * gw, C * P * P)  # (B, N, C*P*P)


def trap_no_permute(images, P: int):
    B, C, H, W = images.shape
    x = images.reshape(B, C, H // P, P, W // P, P)
    return x.reshape(B, (H // P) * (W // P), C * P * P)  # right shape, strips instead of squares


def trap_channels_last_content(images, P: int):
    B, C, H, W = images.shape
    x = images.reshape(B, C, H // P, P, W // P, P).permute(0, 2, 4, 3, 5, 1)  # (B, gh, gw, P, P, C)
    return x.reshape(B, -1, C * P * P)


def trap_square_grid(images, P: int):
    B, C, H, W = images.shape
    G = H // P  # one grid size for both axes: only right when H == W
    x = images.reshape(B, C, G, P, G, P).permute(0, 2, 4, 1, 3, 5)
    return x.reshape(B, G * G, C * P * P)


def trap_column_major_grid(images, P: int):
    B, C, H, W = images.shape
    x = images.reshape(B, C, H // P, P, W // P, P).permute(0, 4, 2, 1, 3, 5)  # (B, gw, gh, C, P, P)
    return x.reshape(B, -1, C * P * P)


def trap_transposed_patch(images, P: int):
    B, C, H, W = images.shape
    x = images.reshape(B, C, H // P, P, W // P, P).permute(0, 2, 4, 1, 5, 3)  # (B, gh, gw, C, Pw, Ph)
    return x.reshape(B, -1, C * P * P)
