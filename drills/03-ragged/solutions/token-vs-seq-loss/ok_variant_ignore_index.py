# variant: labels=ignore
# Hugging Face's labels: -100 wherever there is no loss; loss_mask is only the attention mask here.
import torch.nn.functional as F


def lm_losses(logits, ids, loss_mask):
    B, T, V = logits.shape
    nll = F.cross_entropy(logits.float().view(-1, V), ids.view(-1), ignore_index=-100, reduction="none").view(B, T)
    counted = (ids != -100).float()
    token_mean = nll.sum() / counted.sum()
    seq_mean = (nll.sum(dim=1) / counted.sum(dim=1)).mean()
    return token_mean, seq_mean
