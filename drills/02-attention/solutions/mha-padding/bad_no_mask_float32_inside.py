# trap: no-mask  (the padding mask never applied; scores in float32, the result cast back to the input dtype)
import math

import torch


def multi_head_attention(Q, K, V, pad_mask, H):
    B, T, d = Q.shape
    dh = d // H
    q = Q.float().reshape(B, T, H, dh).transpose(1, 2)
    k = K.float().reshape(B, -1, H, dh).transpose(1, 2)
    v = V.float().reshape(B, -1, H, dh).transpose(1, 2)
    w = (q @ k.transpose(-2, -1) / math.sqrt(dh)).softmax(dim=-1)
    return (w @ v).transpose(1, 2).reshape(B, T, d).to(Q.dtype)
