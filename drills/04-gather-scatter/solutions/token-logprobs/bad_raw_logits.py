# trap: raw-logits
def token_logprobs(logits, ids):
    return logits.gather(2, ids[:, :, None])[:, :, 0]
