# variant: shift=causal temperature=sampled_0_7
# As TRL's GRPOTrainer scores completions: drop the last logit, divide by the sampling temperature,
# log_softmax, and pick each next token's entry.
import torch


def token_logprobs(logits, ids):
    scaled = logits[:, :-1, :].float() / 0.7  # (B, T - 1, V): position t predicts token t + 1
    logps = torch.log_softmax(scaled, dim=-1)
    picked = torch.gather(logps, dim=-1, index=ids[:, 1:].unsqueeze(-1)).squeeze(-1)
    return picked.to(logits.dtype)
