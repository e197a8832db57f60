# trap: attention-as-loss-mask
# variant: labels=ignore
# cross_entropy skips the -100 labels, but the attention mask still sets the weights and the counts.
import torch.nn.functional as F


def lm_losses(logits, ids, loss_mask):
    B, T, V = logits.shape
    nll = F.cross_entropy(logits.float().reshape(-1, V), ids.reshape(-1), reduction="none").reshape(B, T)
    m = loss_mask.float()
    return (nll * m).sum() / m.sum(), ((nll * m).sum(1) / m.sum(1)).mean()
