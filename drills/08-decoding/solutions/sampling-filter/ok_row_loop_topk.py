# One row at a time, the way a per-request sampler loop reads: topk for the k-th value, min-p on log-probs.
import math

import torch


def filter_logits(logits, temperature, top_k, min_p):
    out = []
    for row, t, k, mp in zip(logits, temperature, top_k, min_p):
        z = row / t
        keep = torch.ones_like(z, dtype=torch.bool)
        k = int(k)
        if k > 0:
            kth = torch.topk(z, k).values[-1]
            keep &= z >= kth
        mp = float(mp)
        if mp > 0:
            logp = torch.log_softmax(z.double(), dim=-1)
            keep &= logp >= logp.max() + math.log(mp)
        out.append(torch.where(keep, z, torch.full_like(z, float("-inf"))))
    return torch.stack(out)
