# variant: smoothing=others
import torch


def cross_entropy(logits, targets, label_smoothing=0.0, ignore_index=-100):
    # fairseq's label_smoothed_nll_loss: eps_i = eps / (V - 1) on each other class
    lprobs = torch.log_softmax(logits.float(), dim=-1)
    V = lprobs.size(-1)
    pad = targets.eq(ignore_index)
    target = targets.masked_fill(pad, 0).unsqueeze(-1)
    nll_loss = -lprobs.gather(dim=-1, index=target).squeeze(-1)
    smooth_loss = -lprobs.sum(dim=-1)
    eps_i = label_smoothing / (V - 1)
    loss = (1.0 - label_smoothing - eps_i) * nll_loss + eps_i * smooth_loss
    loss = loss.masked_fill(pad, 0.0)
    n = (~pad).sum()
    return loss.sum() / n.clamp(min=1)
