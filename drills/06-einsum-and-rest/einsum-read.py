"""Reference and traps for einsum-read (no einsum allowed: it is banned in the drill)."""
import math

import torch


def scores_without_einsum(q, k):
    qs = q.transpose(1, 2)  # (B, H, T, dh)
    ks = k.transpose(1, 2)  # (B, H, S, dh)
    return qs @ ks.transpose(-2, -1)  # (B, H, T, S): dh is summed away


def trap_missing_transpose(q, k):
    # q stays (B, T, H, dh); k becomes (B, H, dh, S): the batch axes (B, T) and (B, H)
    # only line up when H == T, and then the result is (B, T, H, S) with the wrong pairs
    return q @ k.permute(0, 2, 3, 1)


def trap_reshape_not_transpose(q, k):
    B, T, H, dh = q.shape
    S = k.shape[1]
    return q.reshape(B, H, T, dh) @ k.reshape(B, H, S, dh).transpose(-2, -1)


def trap_keys_by_queries(q, k):
    return k.transpose(1, 2) @ q.transpose(1, 2).transpose(-2, -1)  # (B, H, S, T)


def trap_scaled(q, k):
    return q.transpose(1, 2) @ k.transpose(1, 2).transpose(-2, -1) / math.sqrt(q.shape[-1])
