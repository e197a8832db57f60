"""Reference and traps for mha-padding."""
import math

import torch


def _split(x, H):
    B, L, d = x.shape
    return x.reshape(B, L, H, d // H).transpose(1, 2)  # (B, H, L, dh)


def _merge(ctx):
    B, H, T, dh = ctx.shape
    return ctx.transpose(1, 2).reshape(B, T, H * dh)  # (B, T, d)


def multi_head_attention(Q, K, V, pad_mask, H: int):
    dh = Q.shape[-1] // H
    q, k, v = _split(Q, H), _split(K, H), _split(V, H)  # (B, H, T|S, dh)
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)  # (B, H, T, S)
    keep = pad_mask.bool()[:, None, None, :]  # (B, 1, 1, S)
    scores = scores.masked_fill(~keep, torch.finfo(scores.dtype).min)
    return _merge(torch.softmax(scores, dim=-1) @ v)  # (B, T, d)


def _attend(Q, K, V, keep, H, scale, dim=-1):
    q, k, v = _split(Q, H), _split(K, H), _split(V, H)
    scores = q @ k.transpose(-2, -1) / scale
    if keep is not None:
        scores = scores.masked_fill(~keep, torch.finfo(scores.dtype).min)
    return torch.softmax(scores, dim=dim) @ v


def trap_scale_by_d(Q, K, V, pad_mask, H: int):
    keep = pad_mask.bool()[:, None, None, :]
    return _merge(_attend(Q, K, V, keep, H, math.sqrt(Q.shape[-1])))


def trap_softmax_dim_minus_2(Q, K, V, pad_mask, H: int):
    keep = pad_mask.bool()[:, None, None, :]
    return _merge(_attend(Q, K, V, keep, H, math.sqrt(Q.shape[-1] // H), dim=-2))


def trap_mask_queries(Q, K, V, pad_mask, H: int):
    keep = pad_mask.bool()[:, None, :, None]  # (B, 1, S, 1): an error unless T == S
    return _merge(_attend(Q, K, V, keep, H, math.sqrt(Q.shape[-1] // H)))


def trap_no_mask(Q, K, V, pad_mask, H: int):
    return _merge(_attend(Q, K, V, None, H, math.sqrt(Q.shape[-1] // H)))


def trap_merge_without_transpose(Q, K, V, pad_mask, H: int):
    keep = pad_mask.bool()[:, None, None, :]
    ctx = _attend(Q, K, V, keep, H, math.sqrt(Q.shape[-1] // H))
    B, _, T, _ = ctx.shape
    return ctx.reshape(B, T, -1)
