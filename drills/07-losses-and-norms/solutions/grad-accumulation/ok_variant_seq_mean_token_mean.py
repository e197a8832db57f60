# variant: unit=sequence
import torch


def micro_batch_losses(losses, mask):
    # verl's seq-mean-token-mean, spread over micro-batches by the global number of sequences
    m = mask.float()
    tokens = m.sum(-1)  # (N, B)
    seq_mean = (losses.float() * m).sum(-1) / tokens.clamp(min=1)  # (N, B)
    global_batch_size = (tokens > 0).sum().clamp(min=1)
    return seq_mean.sum(-1) / global_batch_size
