# device: mixes CPU tensors with the inputs (correct on a CPU, an error on a GPU)
import torch
import torch.nn.functional as F


def causal_lm_loss(logits, ids, n_prefix=0):
    # build labels over the whole sequence (-100 on the prefix), then shift them as HF does
    B, L, V = logits.shape
    labels = torch.full((B, L), -100, dtype=torch.long)
    labels[:, n_prefix:] = ids
    shift_logits = logits[:, :-1, :].contiguous()
    shift_labels = labels[:, 1:].contiguous()
    return F.cross_entropy(shift_logits.view(-1, V).to(torch.float32), shift_labels.view(-1), ignore_index=-100)
