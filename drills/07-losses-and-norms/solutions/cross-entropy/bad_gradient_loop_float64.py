# trap: none
# Right in every case, but it cannot train: no gradient reaches logits (its values leave autograd on the way: .item(), .tolist(), .detach() or a NumPy copy).
import math

import torch


def cross_entropy(logits, targets, label_smoothing=0.0, ignore_index=-100):
    B, T, V = logits.shape
    x = logits.double()
    total, count = 0.0, 0
    for b in range(B):
        for t in range(T):
            y = int(targets[b, t])
            if y == ignore_index:
                continue
            row = x[b, t]
            m = float(row.max())
            lse = m + math.log(float(torch.exp(row - m).sum()))
            nll = lse - float(row[y])
            smooth = lse - float(row.mean())
            total += (1 - label_smoothing) * nll + label_smoothing * smooth
            count += 1
    out = total / count if count else 0.0
    return torch.tensor(out, dtype=torch.float32, device=logits.device)
