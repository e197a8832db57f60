# variant: temperature=sampled_0_7
# The tokens were sampled at temperature 0.7, so score them under softmax(logits / 0.7).
import torch.nn.functional as F


def token_logprobs(logits, ids):
    B, T, V = logits.shape
    scaled = logits.float() / 0.7
    nll = F.cross_entropy(scaled.reshape(-1, V), ids.reshape(-1), reduction="none")
    return -nll.view(B, T).to(logits.dtype)
