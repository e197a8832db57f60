# trap: fairseq-smoothing
import torch


def cross_entropy(logits, targets, label_smoothing=0.0, ignore_index=-100):
    lprobs = torch.log_softmax(logits.float(), dim=-1)
    V = lprobs.size(-1)
    pad = targets.eq(ignore_index)
    nll_loss = -lprobs.gather(-1, targets.masked_fill(pad, 0).unsqueeze(-1)).squeeze(-1)
    smooth_loss = -lprobs.sum(-1)
    eps_i = label_smoothing / (V - 1)
    loss = (1.0 - label_smoothing - eps_i) * nll_loss + eps_i * smooth_loss
    return loss.masked_fill(pad, 0.0).sum() / (~pad).sum().clamp(min=1)
