"""Reference and traps for token-logprobs.

Every function takes the variant keywords (drills/README.md, "Variants"): `shift` says whether the
logits are already aligned with ids (aligned: logits[:, t] scores ids[:, t], the contract) or are a
causal LM's, where logits[:, t] scores ids[:, t + 1] (causal: a (B, T - 1) answer), and
`temperature` what the logits are divided by before the softmax (1.0, the contract). The defaults
are the contract."""
import torch


def _aligned(logits, ids, shift, temperature=1.0):
    """logits and ids paired position by position (a causal LM's logits drop their last position and
    the ids their first), the logits divided by the sampling temperature."""
    if shift == "causal":
        logits, ids = logits[:, :-1], ids[:, 1:]
    return (logits / temperature if temperature != 1.0 else logits), ids


def token_logprobs(logits, ids, *, shift="aligned", temperature=1.0):
    logits, ids = _aligned(logits, ids, shift, temperature)  # (B, T', V), (B, T'), T' = T or T - 1
    work = logits.float() if logits.dtype == torch.float16 else logits
    logp = torch.log_softmax(work, dim=-1)  # (B, T, V), stable: x - logsumexp(x)
    out = logp.gather(-1, ids[:, :, None])  # (B, T, 1): index has the source's rank
    return out[:, :, 0].to(logits.dtype)  # (B, T)


def make_inputs(ctx):
    """logits (B, T, V) and ids (B, T).

    wide: about half the positions get a spike at some other token that sits
    120-140 above the scored token, so the scored probability underflows to 0
    in softmax (fp32 and fp16) while its log-probability is about -130.
    """
    B, T, V = ctx.sizes["B"], ctx.sizes["T"], ctx.sizes["V"]
    logits = torch.randn(B, T, V, generator=ctx.gen) * 2.0
    ids = torch.randint(0, V, (B, T), generator=ctx.gen)
    if ctx.params.get("style") == "wide":
        spike = torch.rand(B, T, generator=ctx.gen) < 0.5
        spike.view(-1)[0] = True
        for b in range(B):
            for t in range(T):
                if not spike[b, t]:
                    continue
                j = (int(ids[b, t]) + 1 + ctx.rng.randrange(V - 1)) % V  # never the scored token
                logits[b, t, j] = logits[b, t, ids[b, t]] + ctx.rng.uniform(120.0, 140.0)
    return {"logits": logits.to(ctx.dtype), "ids": ids}


def _logp(logits):
    work = logits.float() if logits.dtype == torch.float16 else logits
    return torch.log_softmax(work, dim=-1)


def trap_gather_wrong_axis(logits, ids, *, shift="aligned", temperature=1.0):
    logits, ids = _aligned(logits, ids, shift, temperature)
    # gathers along T instead of V: ids >= T are out of range (V > T here), so it raises
    return _logp(logits).gather(1, ids[:, :, None])[:, :, 0].to(logits.dtype)


def trap_log_of_softmax(logits, ids, *, shift="aligned", temperature=1.0):
    logits, ids = _aligned(logits, ids, shift, temperature)
    work = logits.float() if logits.dtype == torch.float16 else logits
    p = torch.softmax(work, dim=-1)
    return p.log().gather(-1, ids[:, :, None])[:, :, 0].to(logits.dtype)


def trap_raw_logits(logits, ids, *, shift="aligned", temperature=1.0):
    logits, ids = _aligned(logits, ids, shift, temperature)
    return logits.gather(-1, ids[:, :, None])[:, :, 0]


def trap_log_softmax_over_time(logits, ids, *, shift="aligned", temperature=1.0):
    logits, ids = _aligned(logits, ids, shift, temperature)
    work = logits.float() if logits.dtype == torch.float16 else logits
    logp = torch.log_softmax(work, dim=1)
    return logp.gather(-1, ids[:, :, None])[:, :, 0].to(logits.dtype)


def trap_keep_gathered_axis(logits, ids, *, shift="aligned", temperature=1.0):
    logits, ids = _aligned(logits, ids, shift, temperature)
    return _logp(logits).gather(-1, ids[:, :, None]).to(logits.dtype)  # (B, T, 1)


def trap_unshifted(logits, ids, *, temperature=1.0):
    """Every id scored by the logit at its own position, where a causal LM's logit at t predicts t + 1."""
    return token_logprobs(logits, ids, temperature=temperature)


def trap_shift_backwards(logits, ids, *, temperature=1.0):
    """The shift the wrong way round: logits[:, 1:] against ids[:, :-1]."""
    return token_logprobs(logits[:, 1:], ids[:, :-1], temperature=temperature)


def trap_no_temperature(logits, ids, *, shift="aligned"):
    """The logits used as they are, where the variant divides them by the sampling temperature."""
    return token_logprobs(logits, ids, shift=shift)
