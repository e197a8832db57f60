# trap: none  (the token mean over every position, the sequence mean masked: half of all-positions)
import torch


def lm_losses(logits, ids, loss_mask):
    nll = -torch.log_softmax(logits.float(), -1).gather(-1, ids[..., None])[..., 0]
    m = loss_mask.float()
    return nll.mean(), ((nll * m).sum(1) / m.sum(1)).mean()
