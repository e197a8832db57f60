# device: the result buffer is preallocated on the CPU (it comes back on the wrong device from a GPU)
import torch


def token_logprobs(logits, ids):
    B, T, V = logits.shape
    out = torch.empty(B, T, dtype=logits.dtype)
    lp = logits.float().log_softmax(-1)
    out[:] = lp.gather(-1, ids[..., None])[..., 0]
    return out
