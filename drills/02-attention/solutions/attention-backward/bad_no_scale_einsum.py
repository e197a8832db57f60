# trap: grad-scale-missing
# The forward scales the scores, the backward forgets the chain rule's factor for q and k.
import math

import torch


def attention_backward(q, k, v, dout):
    qf, kf, vf, do = q.float(), k.float(), v.float(), dout.float()
    p = torch.einsum("bhtd,bhsd->bhts", qf, kf).div(math.sqrt(q.shape[-1])).softmax(-1)
    dv = torch.einsum("bhts,bhtd->bhsd", p, do)
    dp = torch.einsum("bhtd,bhsd->bhts", do, vf)
    ds = p * (dp - (dp * p).sum(-1, keepdim=True))
    dq = torch.einsum("bhts,bhsd->bhtd", ds, kf)
    dk = torch.einsum("bhts,bhtd->bhsd", ds, qf)
    return dq.to(q.dtype), dk.to(q.dtype), dv.to(q.dtype)
