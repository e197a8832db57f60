"""Reference and traps for attention-backward.

Every function takes the variant keyword `layout` (drills/README.md, "Variants"): bhtd, the
contract, SDPA's (B, H, T, dh); bthd, flash-attn's flash_attn_func (B, T, H, dh), for the inputs
and the three gradients alike."""
import math

import torch


def _heads_first(layout, *xs):
    return tuple(x.transpose(1, 2) for x in xs) if layout == "bthd" else xs


def _backward(q, k, v, dout, layout, rowsum=True, grad_scale=None, dk_transposed=True):
    dtype = q.dtype
    q, k, v, dout = (x.float() if x.dtype in (torch.float16, torch.bfloat16) else x  # accumulate in fp32 at least
                     for x in _heads_first(layout, q, k, v, dout))  # (B, H, T|S, dh)
    scale = 1.0 / math.sqrt(q.shape[-1])
    p = torch.softmax(q @ k.transpose(-2, -1) * scale, dim=-1)  # (B, H, T, S), recomputed as FlashAttention does
    dv = p.transpose(-2, -1) @ dout  # (B, H, S, dh)
    dp = dout @ v.transpose(-2, -1)  # (B, H, T, S)
    if rowsum:
        ds = p * (dp - (dp * p).sum(dim=-1, keepdim=True))  # softmax backward: the (B, H, T, 1) row term
    else:
        ds = p * dp
    gs = scale if grad_scale is None else grad_scale
    dq = ds @ k * gs  # (B, H, T, dh)
    dk = (ds.transpose(-2, -1) if dk_transposed else ds) @ q * gs  # (B, H, S, dh)
    return _heads_first(layout, dq.to(dtype), dk.to(dtype), dv.to(dtype))


def attention_backward(q, k, v, dout, *, layout="bhtd"):
    return _backward(q, k, v, dout, layout)


def trap_no_rowsum(q, k, v, dout, *, layout="bhtd"):
    return _backward(q, k, v, dout, layout, rowsum=False)  # dS = P * dP: the softmax's normalisation forgotten


def trap_grad_scale_missing(q, k, v, dout, *, layout="bhtd"):
    return _backward(q, k, v, dout, layout, grad_scale=1.0)  # the forward's 1/sqrt(dh) left out of dq and dk


def trap_grad_scale_twice(q, k, v, dout, *, layout="bhtd"):
    dh = q.shape[-1]
    return _backward(q, k, v, dout, layout, grad_scale=1.0 / dh)  # 1/sqrt(dh) folded into dS and applied again


def trap_dk_from_ds(q, k, v, dout, *, layout="bhtd"):
    return _backward(q, k, v, dout, layout, dk_transposed=False)  # dS @ Q: (T, S) @ (T, dh), an error unless T == S


def trap_heads_first_layout(q, k, v, dout):
    """The contract's (B, H, T, dh) reading of flash-attn's (B, T, H, dh) tensors."""
    return _backward(q, k, v, dout, "bhtd")
