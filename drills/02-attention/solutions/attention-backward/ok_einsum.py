# einsum throughout, with the 1/sqrt(dh) folded into q once.
import math

import torch


def attention_backward(q, k, v, dout):
    dh = q.shape[-1]
    qs = q.float() / math.sqrt(dh)
    kf, vf, do = k.float(), v.float(), dout.float()
    p = torch.einsum("bhtd,bhsd->bhts", qs, kf).softmax(-1)
    dv = torch.einsum("bhts,bhtd->bhsd", p, do)
    dp = torch.einsum("bhtd,bhsd->bhts", do, vf)
    ds = p * (dp - torch.einsum("bhts,bhts->bht", dp, p)[..., None])
    dq = torch.einsum("bhts,bhsd->bhtd", ds, kf) / math.sqrt(dh)
    dk = torch.einsum("bhts,bhtd->bhsd", ds, qs)  # qs already carries the 1/sqrt(dh)
    return dq.to(q.dtype), dk.to(q.dtype), dv.to(q.dtype)
