# device: the additive mask is built on the CPU (correct on a CPU, an error on a GPU)
import torch


def multi_head_attention(Q, K, V, pad_mask, H: int):
    B, T, d = Q.shape
    S = K.shape[1]
    dh = d // H
    q = Q.view(B, T, H, dh).transpose(1, 2)
    k = K.view(B, S, H, dh).transpose(1, 2)
    v = V.view(B, S, H, dh).transpose(1, 2)
    bias = torch.zeros(B, 1, 1, S, dtype=Q.dtype)  # CPU
    bias = bias.masked_fill(pad_mask[:, None, None, :] == 0, float("-inf"))
    w = (q @ k.transpose(-2, -1) / dh ** 0.5 + bias).softmax(-1)
    return (w @ v).transpose(1, 2).reshape(B, T, d)
