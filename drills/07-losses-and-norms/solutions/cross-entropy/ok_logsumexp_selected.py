import torch


def cross_entropy(logits, targets, label_smoothing=0.0, ignore_index=-100):
    V = logits.shape[-1]
    flat = logits.reshape(-1, V).float()
    tgt = targets.reshape(-1)
    kept = tgt != ignore_index
    x, y = flat[kept], tgt[kept]          # (N, V), (N,)
    if y.numel() == 0:
        return logits.new_zeros((), dtype=torch.float32)
    lse = torch.logsumexp(x, dim=1)
    nll = lse - x[torch.arange(len(y), device=x.device), y]
    smooth = lse - x.mean(dim=1)
    eps = label_smoothing
    return ((1 - eps) * nll + eps * smooth).mean()
