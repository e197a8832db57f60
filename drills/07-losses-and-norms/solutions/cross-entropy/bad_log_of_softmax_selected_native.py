# trap: log-of-softmax
# (kept rows selected first, softmax in the logits' own dtype, the smoothing term only when eps > 0)
import torch


def cross_entropy(logits, targets, label_smoothing=0.0, ignore_index=-100):
    keep = targets != ignore_index
    if not keep.any():
        return logits.new_zeros(())
    probs = logits[keep].softmax(dim=-1)          # (N, V)
    y = targets[keep]
    logp = probs.log()
    loss = -logp[torch.arange(y.numel(), device=y.device), y]
    if label_smoothing > 0:
        loss = (1 - label_smoothing) * loss - label_smoothing * logp.mean(dim=-1)
    return loss.mean()
