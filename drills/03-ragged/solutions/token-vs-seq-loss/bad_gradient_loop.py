# trap: none
# Right in every case, but it cannot train: no gradient reaches logits (its values leave autograd on the way: .item(), .tolist(), .detach() or a NumPy copy).
import math
import torch


def lm_losses(logits, ids, loss_mask):
    B, T, V = logits.shape
    total, count, rows = 0.0, 0, []
    for b in range(B):
        row_total, row_count = 0.0, 0
        for t in range(T):
            if float(loss_mask[b, t]) != 0:
                lp = torch.log_softmax(logits[b, t].double(), -1)[ids[b, t]]
                row_total -= float(lp)
                row_count += 1
        total += row_total
        count += row_count
        rows.append(row_total / row_count)
    return torch.tensor(total / count, dtype=torch.float32), torch.tensor(sum(rows) / B, dtype=torch.float32)
