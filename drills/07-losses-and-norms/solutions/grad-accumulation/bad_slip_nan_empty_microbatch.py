# trap: none
# partial: mean-of-means
# The pre-#34191 bug written with a plain masked mean: no clamp, so the micro-batch without loss
# tokens is 0 / 0 = NaN on top of the mis-weighting.
import torch


def micro_batch_losses(losses, mask):
    m = mask.float()
    per_mb = (losses.float() * m).sum((1, 2)) / m.sum((1, 2))
    return per_mb / losses.shape[0]
