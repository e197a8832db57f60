"""Reference and traps for grpo-advantages. The reference is also the oracle (run in float64).

Every function takes the variant keyword (drills/README.md, "Variants"): `scale` says what the
centred rewards are divided by: each group's std (std: GRPO, the contract), the std of the whole
batch (batch), or nothing (none: Dr. GRPO); `std` says which standard deviation: the population one
(population: divides by n, the contract) or the unbiased one (unbiased: n - 1, as TRL's GRPOTrainer
has it). The defaults are the contract."""
import torch


def _over(scale, dim=1):
    """Keywords for a statistic over each group (along dim), or over the whole batch for scale batch."""
    return {} if scale == "batch" else {"dim": dim, "keepdim": True}


def _scaled(centred, spread, scale):
    """The centred rewards divided by spread (the std + eps), or as they are when scale is none."""
    return centred if scale == "none" else centred / spread


def group_advantages(rewards, P: int, G: int, eps: float = 1e-6, *, scale="std", std="population"):
    r = rewards.double().reshape(P, G)  # prompt-major: row p holds prompt p's G samples
    mean = r.mean(1, keepdim=True)  # (P, 1)
    spread = r.std(unbiased=std == "unbiased", **_over(scale))  # (P, 1) per group; 0-d for the batch
    adv = _scaled(r - mean, spread + eps, scale)  # a flat group: 0 / (0 + eps) = 0
    return adv.reshape(-1).to(rewards.dtype)  # (P*G,)


def make_rewards(ctx, shape, dtype, style="binary"):
    """binary: 0/1 rewards with group 0 all 0.0 and group 1 all 1.0 (when P >= 2), every other group mixed;
    continuous: uniform rewards in [0, 1), each group with a population std of at least 0.2.
    Both need G >= 2 (one reward is never mixed, and has no spread): below that they raise."""
    style = str(ctx.params.get("style", style))
    P, G = ctx.sizes["P"], ctx.sizes["G"]
    if G < 2:
        raise ValueError(f"make_rewards: a group of G = {G} rewards cannot be mixed or spread; G >= 2")
    if style == "continuous":
        r = torch.rand(P, G, generator=ctx.gen)
        for p in range(P):  # keep every group's std >= 0.2, so fp16 maths is not ill-conditioned
            for _ in range(_DRAWS):  # a fresh draw succeeds with probability >= 0.36 (G = 2): this loop ends
                if float(r[p].std(unbiased=False)) >= 0.2:
                    break
                r[p] = torch.rand(G, generator=ctx.gen)
            else:
                r[p] = _spread(G, ctx.gen)
    else:
        r = (torch.rand(P, G, generator=ctx.gen) < 0.5).float()
        for p in range(P):
            r[p, 0], r[p, 1] = 0.0, 1.0  # mixed unless overwritten below
        r[0] = 0.0
        if P >= 2:
            r[1] = 1.0
    return r.reshape(-1).to(dtype)


_DRAWS = 64  # fresh draws per group before building one whose spread is certain


def _spread(G, gen):
    """G >= 2 rewards in [0, 1) whose population std is at least 0.2 by construction: half of them
    in [0, 0.1), the rest in [0.9, 1.0), in a random order (a gap of 0.8 between the halves gives
    std >= 0.8 * sqrt(k (G - k)) / G >= 0.37 for k = G // 2)."""
    low = torch.arange(G) < G // 2
    values = torch.where(low, 0.0, 0.9) + 0.1 * torch.rand(G, generator=gen)
    return values[torch.randperm(G, generator=gen)]


def trap_group_major(rewards, P: int, G: int, eps: float = 1e-6, *, scale="std", std="population"):
    r = rewards.double().reshape(G, P)  # reads the batch as if it were built with repeat()
    adv = _scaled(r - r.mean(0, keepdim=True), r.std(unbiased=std == "unbiased", **_over(scale, 0)) + eps, scale)
    return adv.reshape(-1).to(rewards.dtype)


def trap_unbiased_std(rewards, P: int, G: int, eps: float = 1e-6, *, scale="std"):
    r = rewards.double().reshape(P, G)
    adv = _scaled(r - r.mean(1, keepdim=True), r.std(**_over(scale)) + eps, scale)
    return adv.reshape(-1).to(rewards.dtype)


def trap_eps_in_sqrt(rewards, P: int, G: int, eps: float = 1e-6, *, scale="std", std="population"):
    r = rewards.double().reshape(P, G)
    var = r.var(unbiased=std == "unbiased", **_over(scale))
    adv = _scaled(r - r.mean(1, keepdim=True), torch.sqrt(var + eps), scale)
    return adv.reshape(-1).to(rewards.dtype)


def trap_no_eps(rewards, P: int, G: int, eps: float = 1e-6, *, std="population"):
    r = rewards.double().reshape(P, G)
    adv = (r - r.mean(1, keepdim=True)) / r.std(1, unbiased=std == "unbiased", keepdim=True)
    return adv.reshape(-1).to(rewards.dtype)


def trap_global_baseline(rewards, P: int, G: int, eps: float = 1e-6, *, scale="std", std="population"):
    r = rewards.double()
    return _scaled(r - r.mean(), r.std(unbiased=std == "unbiased") + eps, scale).to(rewards.dtype)


def trap_std_scaled(rewards, P: int, G: int, eps: float = 1e-6, *, std="population"):
    """The contract's GRPO advantage (divided by each group's std) where the variant does otherwise."""
    return group_advantages(rewards, P, G, eps, std=std)


def trap_population_std(rewards, P: int, G: int, eps: float = 1e-6, *, scale="std"):
    """The contract's population std (n) where the variant asks for TRL's unbiased one (n - 1)."""
    return group_advantages(rewards, P, G, eps, scale=scale)
