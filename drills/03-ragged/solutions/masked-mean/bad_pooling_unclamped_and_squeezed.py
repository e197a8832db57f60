# trap: none
# partial: unclamped-count
# Two mistakes: sentence-transformers' mean pooling without its clamp (NaN for an empty sample)
# and a squeeze() at the end (a batch of one loses its batch axis). Neither trap explains both;
# the unclamped count is reported as a partial match.
import torch


def masked_mean(x, mask):
    input_mask_expanded = mask.unsqueeze(-1).expand(x.size()).to(x.dtype)
    sum_embeddings = torch.sum(x * input_mask_expanded, 1)
    sum_mask = input_mask_expanded.sum(1)
    return (sum_embeddings / sum_mask).squeeze()
