"""Reference and traps for cross-attention."""
import math

import torch


def _split(x, H):
    B, L, d = x.shape
    return x.reshape(B, L, H, d // H).transpose(1, 2)  # (B, H, L, dh)


def cross_attention(Q, K, V, enc_pad_mask, H: int):
    B, T, d = Q.shape
    dh = d // H
    q, k, v = _split(Q, H), _split(K, H), _split(V, H)  # (B, H, T, dh), (B, H, S, dh)
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)  # (B, H, T, S)
    keep = enc_pad_mask.bool()[:, None, None, :]  # (B, 1, 1, S): encoder padding only
    w = torch.softmax(scores.masked_fill(~keep, torch.finfo(scores.dtype).min), dim=-1)  # (B, H, T, S)
    out = (w @ v).transpose(1, 2).reshape(B, T, d)  # (B, T, d)
    return out, w


def _attend(Q, K, V, keep, H, scale):
    B, T, d = Q.shape
    q, k, v = _split(Q, H), _split(K, H), _split(V, H)
    scores = q @ k.transpose(-2, -1) / scale
    if keep is not None:
        scores = scores.masked_fill(~keep, torch.finfo(scores.dtype).min)
    w = torch.softmax(scores, dim=-1)
    return (w @ v).transpose(1, 2).reshape(B, T, d), w


def trap_causal(Q, K, V, enc_pad_mask, H: int):
    T = Q.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()  # the decoder's (T, T) mask, reused
    keep = enc_pad_mask.bool()[:, None, None, :] & causal  # an error unless T == S
    return _attend(Q, K, V, keep, H, math.sqrt(Q.shape[-1] // H))


def trap_causal_ts(Q, K, V, enc_pad_mask, H: int):
    T, S = Q.shape[1], K.shape[1]
    causal = torch.ones(T, S, dtype=torch.bool).tril()  # a triangle stretched to the source length
    keep = enc_pad_mask.bool()[:, None, None, :] & causal
    return _attend(Q, K, V, keep, H, math.sqrt(Q.shape[-1] // H))


def trap_weights_transposed(Q, K, V, enc_pad_mask, H: int):
    out, w = _attend(Q, K, V, enc_pad_mask.bool()[:, None, None, :], H, math.sqrt(Q.shape[-1] // H))
    return out, w.transpose(-2, -1)  # (B, H, S, T)


def trap_weights_head_averaged(Q, K, V, enc_pad_mask, H: int):
    out, w = _attend(Q, K, V, enc_pad_mask.bool()[:, None, None, :], H, math.sqrt(Q.shape[-1] // H))
    return out, w.mean(dim=1)  # (B, T, S), as nn.MultiheadAttention returns by default


def trap_scale_by_d(Q, K, V, enc_pad_mask, H: int):
    return _attend(Q, K, V, enc_pad_mask.bool()[:, None, None, :], H, math.sqrt(Q.shape[-1]))


def trap_no_mask(Q, K, V, enc_pad_mask, H: int):
    return _attend(Q, K, V, None, H, math.sqrt(Q.shape[-1] // H))


def trap_mask_on_queries(Q, K, V, enc_pad_mask, H: int):
    keep = enc_pad_mask.bool()[:, None, :, None]  # (B, 1, S, 1): an error unless T == S
    return _attend(Q, K, V, keep, H, math.sqrt(Q.shape[-1] // H))
