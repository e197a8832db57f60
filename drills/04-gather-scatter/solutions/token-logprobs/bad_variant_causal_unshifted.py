# trap: unshifted
# variant: shift=causal
# The aligned recipe from memory: each id is scored by the logit at its own position.
import torch.nn.functional as F


def token_logprobs(logits, ids):
    logp = F.log_softmax(logits.float(), dim=-1)
    return logp.gather(-1, ids[..., None])[..., 0].to(logits.dtype)
