# trap: swapped-means  (token and sequence means returned in the wrong order, computed in fp32 and returned in fp16)
import torch


def lm_losses(logits, ids, loss_mask):
    logp = logits.float().log_softmax(-1)
    nll = -logp.gather(2, ids.unsqueeze(2)).squeeze(2)
    m = loss_mask.float()
    per_seq = (nll * m).sum(1) / m.sum(1)
    token = (nll * m).sum() / m.sum()
    return per_seq.mean().to(logits.dtype), token.to(logits.dtype)
