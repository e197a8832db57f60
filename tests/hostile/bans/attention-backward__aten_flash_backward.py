# kernel: aten::_scaled_dot_product_flash_attention_for_cpu_backward
import math

import torch


def attention_backward(q, k, v, dout):
    qf, kf, vf, do = q.float(), k.float(), v.float(), dout.float()
    scores = qf @ kf.transpose(-2, -1) / math.sqrt(q.shape[-1])
    lse = scores.logsumexp(-1)  # (B, H, T): what the forward kernel would have saved
    out = scores.softmax(-1) @ vf
    dq, dk, dv = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward(do, qf, kf, vf, out, lse, 0.0,
                                                                                        False)
    return dq.to(q.dtype), dk.to(q.dtype), dv.to(q.dtype)
