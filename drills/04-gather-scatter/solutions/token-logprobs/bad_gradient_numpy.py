# trap: none
# Right in every case, but it cannot train: a NumPy round trip, whose .numpy() raises once the inputs require grad.
import numpy as np
import torch


def token_logprobs(logits, ids):
    x = logits.double().numpy()
    m = x.max(-1, keepdims=True)
    lse = m + np.log(np.exp(x - m).sum(-1, keepdims=True))
    logp = x - lse
    out = np.take_along_axis(logp, ids.numpy()[:, :, None], axis=-1)[:, :, 0]
    return torch.from_numpy(out).to(logits.dtype)
