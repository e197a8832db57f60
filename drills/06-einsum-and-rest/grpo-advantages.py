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
    continuous: uniform rewards in [0, 1), each group with a population std of at least 0.2."""
    style = str(ctx.params.get("style", style))
    P, G = ctx.sizes["P"], ctx.sizes["G"]
    if style == "continuous":
        r = torch.rand(P, G, generator=ctx.gen)
        for p in range(P):  # keep every group's std >= 0.2, so fp16 maths is not ill-conditioned
            while float(r[p].std(unbiased=False)) < 0.2:
                r[p] = torch.rand(G, generator=ctx.gen)
    else:
        r = (torch.rand(P, G, generator=ctx.gen) < 0.5).float()
        for p in range(P):
            r[p, 0], r[p, 1] = 0.0, 1.0  # mixed unless overwritten below
        r[0] = 0.0
        if P >= 2:
            r[1] = 1.0
    return r.reshape(-1).to(dtype)


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
