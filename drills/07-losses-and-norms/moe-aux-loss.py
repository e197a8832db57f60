"""Reference and traps for moe-aux-loss: the Switch/Mixtral load-balancing loss of a top-k router.

Every function takes the variant keyword (drills/README.md, "Variants"): `norm` says how the routed
fractions f are normalised: hf (the contract, transformers' Mixtral load_balancing_loss_func), the
fraction of tokens that picked each expert, so they sum to k; megatron (Megatron-LM's
switch_load_balancing_loss_func), the same divided by k, so they sum to 1. The defaults are the contract."""
import torch


def _probs_and_picks(router_logits, k):
    """float64 softmax probabilities (N, E) and a 0/1 (N, E) table of each token's top-k experts."""
    logits = router_logits.double()
    probs = torch.softmax(logits, dim=-1)
    idx = logits.topk(k, dim=-1).indices  # (N, k); no ties at the k-th logit, so the set is unique
    picks = torch.zeros_like(probs).scatter_(1, idx, 1.0)  # (N, E)
    return probs, picks


def load_balancing_loss(router_logits, k: int, *, norm="hf"):
    N, E = router_logits.shape
    probs, picks = _probs_and_picks(router_logits, k)
    f = picks.mean(0)  # (E,) fraction of tokens with e among their top k: sums to k
    if norm == "megatron":
        f = f / k  # sums to 1
    P = probs.mean(0)  # (E,) mean router probability
    return (E * (f * P).sum()).to(router_logits.dtype)  # (): k (hf) or 1 (megatron) when balanced


def make_inputs(ctx, *, norm="hf"):
    """router_logits with no ties near the k-th logit: each row is a random permutation of E levels 0.6
    apart, plus noise under 0.1 and a per-row offset (softmax ignores it), so the top-k set is the same
    in fp16 and in float64. params: k (an int, or "last" for E - 1), style: random, skewed (expert 0 is
    the top logit of about 9 rows in 10), unpicked (expert E - 1, the last, is every row's lowest, so no
    token picks it when k < E)."""
    N, E = ctx.sizes["N"], ctx.sizes["E"]
    p = ctx.params
    k = p.get("k", 2)
    k = E - 1 if k == "last" else int(k)
    style = str(p.get("style", "random"))
    levels = torch.stack([torch.randperm(E, generator=ctx.gen) for _ in range(N)]).double()  # (N, E)
    for n in range(N):
        row = levels[n]
        if style in ("skewed", "unpicked-skewed") and n % 10 != 9:
            top = int(row.argmax())
            row[0], row[top] = row[top].clone(), row[0].clone()  # expert 0 gets the top level
        if style in ("unpicked", "unpicked-skewed"):
            low = int(row.argmin())
            row[E - 1], row[low] = row[low].clone(), row[E - 1].clone()  # the last expert gets the lowest
    noise = (torch.rand(N, E, generator=ctx.gen, dtype=torch.float64) - 0.5) * 0.2
    offset = torch.randn(N, 1, generator=ctx.gen, dtype=torch.float64)
    logits = levels * 0.6 + noise + offset - 0.3 * E
    return {"router_logits": logits.to(ctx.dtype), "k": k}


def trap_soft_f(router_logits, k: int, *, norm="hf"):
    """f from the soft probabilities (f = P): E * sum(P^2), no top-k at all."""
    N, E = router_logits.shape
    P = torch.softmax(router_logits.double(), dim=-1).mean(0)
    return (E * (P * P).sum()).to(router_logits.dtype)


def trap_no_factor_e(router_logits, k: int, *, norm="hf"):
    """sum(f * P) without the factor E: a balanced router gives k / E instead of k."""
    N, E = router_logits.shape
    return (load_balancing_loss(router_logits, k, norm=norm).double() / E).to(router_logits.dtype)


def trap_top1_only(router_logits, k: int, *, norm="hf"):
    """f counts each token's first choice only (argmax), however large k is."""
    N, E = router_logits.shape
    probs, picks = _probs_and_picks(router_logits, 1)
    return (E * (picks.mean(0) * probs.mean(0)).sum()).to(router_logits.dtype)


def trap_f_over_k(router_logits, k: int):
    """Megatron-LM's normalisation, f divided by k (sums to 1), where the contract keeps sum(f) = k."""
    return load_balancing_loss(router_logits, k, norm="megatron")


def trap_f_sums_to_k(router_logits, k: int):
    """The contract's (Mixtral's) fractions, summing to k, where the variant divides them by k."""
    return load_balancing_loss(router_logits, k)
