# trap: none
# Right in every case, but it cannot train: no gradient reaches student_logits (its values leave autograd on the way: .item(), .tolist(), .detach() or a NumPy copy).
import math

import torch


def distill_loss(student_logits, teacher_logits, temperature):
    B, V = student_logits.shape
    total = 0.0
    for b in range(B):
        s = [float(x) / temperature for x in student_logits[b]]
        t = [float(x) / temperature for x in teacher_logits[b]]
        ms, mt = max(s), max(t)
        lse_s = ms + math.log(sum(math.exp(x - ms) for x in s))
        lse_t = mt + math.log(sum(math.exp(x - mt) for x in t))
        for v in range(V):
            log_p = t[v] - lse_t
            p = math.exp(log_p)
            if p > 0:
                total += p * (log_p - (s[v] - lse_s))
    return torch.tensor(temperature ** 2 * total / B, dtype=torch.float32, device=student_logits.device)
