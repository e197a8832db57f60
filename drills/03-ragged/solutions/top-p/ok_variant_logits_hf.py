# variant: input=logits
# Written the way Hugging Face's TopPLogitsWarper does it: ascending sort, drop the low tail whose mass is <= 1 - p.
import torch


def top_p_filter(probs, p):
    logits = probs  # raw scores in this variant
    sorted_logits, sorted_idx = torch.sort(logits, descending=False)
    tail_mass = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
    remove = tail_mass <= 1 - p
    remove[..., -1:] = False  # the most likely token always stays
    remove = remove.scatter(1, sorted_idx, remove)
    return logits.masked_fill(remove, float("-inf")).softmax(dim=-1)
