# variant: reduction=sum
# fairseq-style: the criterion returns the summed token losses; dividing by the count is the trainer's job.
import torch.nn.functional as F


def causal_lm_loss(logits, ids, n_prefix=0):
    start = n_prefix - 1 if n_prefix > 0 else 0
    target = ids if n_prefix > 0 else ids[:, 1:]
    pred = logits[:, start: start + target.shape[1]].float()
    lprobs = F.log_softmax(pred, dim=-1)
    return F.nll_loss(lprobs.reshape(-1, lprobs.shape[-1]), target.reshape(-1), reduction="sum")
