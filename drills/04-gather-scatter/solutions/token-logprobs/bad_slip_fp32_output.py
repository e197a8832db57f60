# trap: none
# log_softmax in float32 for safety, but the result is not cast back: fp16 in, fp32 out.
import torch


def token_logprobs(logits, ids):
    logp = torch.log_softmax(logits.float(), dim=-1)
    return logp.gather(-1, ids.unsqueeze(-1)).squeeze(-1)
