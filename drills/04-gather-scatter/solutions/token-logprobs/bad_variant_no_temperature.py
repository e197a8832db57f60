# trap: no-temperature
# variant: temperature=sampled_0_7
# The plain log-probabilities, although the tokens were sampled at temperature 0.7.
import torch


def token_logprobs(logits, ids):
    logp = torch.log_softmax(logits.float(), dim=-1)
    return logp.gather(-1, ids.unsqueeze(-1)).squeeze(-1).to(logits.dtype)
