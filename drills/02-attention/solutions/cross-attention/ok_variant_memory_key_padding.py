# variant: mask=pad
# nn.TransformerDecoder's memory_key_padding_mask convention: True marks encoder padding.
import torch


def cross_attention(Q, K, V, enc_pad_mask, H):
    B, T, d = Q.shape
    S = K.shape[1]
    dh = d // H
    q = Q.view(B, T, H, dh)
    k = K.view(B, S, H, dh)
    v = V.view(B, S, H, dh)
    s = torch.einsum("bthd,bshd->bhts", q, k) / dh ** 0.5
    s = s.masked_fill(enc_pad_mask.bool()[:, None, None, :], torch.finfo(s.dtype).min)
    w = s.softmax(-1)
    out = torch.einsum("bhts,bshd->bthd", w, v).reshape(B, T, d)
    return out, w
