"""Reference and traps for cross-attention.

Every function takes the variant keywords (drills/README.md, "Variants"): `mask` says what
enc_pad_mask holds (keep: 1/True on real encoder tokens; pad: 1/True on padding) and `weights`
what the weights are (heads: (B, H, T, S); mean: averaged over heads, (B, T, S)). The defaults
are the contract."""
import math

import torch


def _split(x, H):
    B, L, d = x.shape
    return x.reshape(B, L, H, d // H).transpose(1, 2)  # (B, H, L, dh)


def _keep(enc_pad_mask, mask):
    """(B, 1, 1, S) bool: True on the real encoder keys, whichever way the mask points."""
    real = enc_pad_mask.bool() if mask == "keep" else ~enc_pad_mask.bool()
    return real[:, None, None, :]


def _weights(w, weights):
    return w.mean(dim=1) if weights == "mean" else w  # nn.MultiheadAttention's average_attn_weights


def cross_attention(Q, K, V, enc_pad_mask, H: int, *, mask="keep", weights="heads"):
    B, T, d = Q.shape
    dh = d // H
    q, k, v = _split(Q, H), _split(K, H), _split(V, H)  # (B, H, T, dh), (B, H, S, dh)
    scores = q @ k.transpose(-2, -1) / math.sqrt(dh)  # (B, H, T, S)
    keep = _keep(enc_pad_mask, mask)  # (B, 1, 1, S): encoder padding only
    w = torch.softmax(scores.masked_fill(~keep, torch.finfo(scores.dtype).min), dim=-1)  # (B, H, T, S)
    out = (w @ v).transpose(1, 2).reshape(B, T, d)  # (B, T, d)
    return out, _weights(w, weights)


def _attend(Q, K, V, keep, H, scale):
    B, T, d = Q.shape
    q, k, v = _split(Q, H), _split(K, H), _split(V, H)
    scores = q @ k.transpose(-2, -1) / scale
    if keep is not None:
        scores = scores.masked_fill(~keep, torch.finfo(scores.dtype).min)
    w = torch.softmax(scores, dim=-1)
    return (w @ v).transpose(1, 2).reshape(B, T, d), w


def trap_causal(Q, K, V, enc_pad_mask, H: int, *, mask="keep", weights="heads"):
    T = Q.shape[1]
    causal = torch.ones(T, T, dtype=torch.bool).tril()  # the decoder's (T, T) mask, reused
    keep = _keep(enc_pad_mask, mask) & causal  # an error unless T == S
    out, w = _attend(Q, K, V, keep, H, math.sqrt(Q.shape[-1] // H))
    return out, _weights(w, weights)


def trap_causal_ts(Q, K, V, enc_pad_mask, H: int, *, mask="keep", weights="heads"):
    T, S = Q.shape[1], K.shape[1]
    causal = torch.ones(T, S, dtype=torch.bool).tril()  # a triangle stretched to the source length
    keep = _keep(enc_pad_mask, mask) & causal
    out, w = _attend(Q, K, V, keep, H, math.sqrt(Q.shape[-1] // H))
    return out, _weights(w, weights)


def trap_weights_transposed(Q, K, V, enc_pad_mask, H: int, *, mask="keep", weights="heads"):
    out, w = _attend(Q, K, V, _keep(enc_pad_mask, mask), H, math.sqrt(Q.shape[-1] // H))
    return out, _weights(w, weights).transpose(-2, -1)  # (B, H, S, T)


def trap_weights_head_averaged(Q, K, V, enc_pad_mask, H: int, *, mask="keep", weights="heads"):
    out, w = _attend(Q, K, V, _keep(enc_pad_mask, mask), H, math.sqrt(Q.shape[-1] // H))
    return out, w.mean(dim=1)  # (B, T, S), as nn.MultiheadAttention returns by default


def trap_scale_by_d(Q, K, V, enc_pad_mask, H: int, *, mask="keep", weights="heads"):
    out, w = _attend(Q, K, V, _keep(enc_pad_mask, mask), H, math.sqrt(Q.shape[-1]))
    return out, _weights(w, weights)


def trap_no_mask(Q, K, V, enc_pad_mask, H: int, *, mask="keep", weights="heads"):
    out, w = _attend(Q, K, V, None, H, math.sqrt(Q.shape[-1] // H))
    return out, _weights(w, weights)


def trap_mask_on_queries(Q, K, V, enc_pad_mask, H: int, *, mask="keep", weights="heads"):
    keep = _keep(enc_pad_mask, mask).transpose(-2, -1)  # (B, 1, S, 1): an error unless T == S
    out, w = _attend(Q, K, V, keep, H, math.sqrt(Q.shape[-1] // H))
    return out, _weights(w, weights)


def trap_keep_convention(Q, K, V, enc_pad_mask, H: int, *, weights="heads"):
    """enc_pad_mask read the contract's way (1/True = real) where it means padding."""
    return cross_attention(Q, K, V, enc_pad_mask, H, mask="keep", weights=weights)


def trap_per_head_weights(Q, K, V, enc_pad_mask, H: int, *, mask="keep"):
    """The contract's (B, H, T, S) weights where the variant asks for their mean over heads."""
    return cross_attention(Q, K, V, enc_pad_mask, H, mask=mask, weights="heads")
