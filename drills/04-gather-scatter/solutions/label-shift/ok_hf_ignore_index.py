# Hugging Face's convention: labels as long as the logits, -100 (ignore_index) on
# the prefix positions, then the usual shift inside the loss.
import torch
import torch.nn.functional as F


def causal_lm_loss(logits, ids, n_prefix=0):
    B = ids.shape[0]
    labels = torch.cat([torch.full((B, n_prefix), -100, dtype=ids.dtype, device=ids.device), ids], dim=1)
    shift_logits = logits[:, :-1].float()
    shift_labels = labels[:, 1:]
    return F.cross_entropy(shift_logits.reshape(-1, shift_logits.shape[-1]),
                           shift_labels.reshape(-1), ignore_index=-100)
