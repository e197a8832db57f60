"""Reference and traps for dpo-loss: the DPO loss from per-token log-probs of a chosen and a rejected
response under the policy and the frozen reference model.

Every function takes the variant keyword (drills/README.md, "Variants"): `loss_type` is sigmoid (the
contract, TRL's DPOConfig default): sequence log-probs summed over each mask, and the mean over B of
-logsigmoid(beta * margin); or ipo (TRL's loss_type="ipo"): each sequence's log-prob divided by its
token count, then (margin - 1 / (2 beta))^2, averaged over B. The defaults are the contract."""
import torch
import torch.nn.functional as F


def _seq(logps, mask, per_token=False):
    """(B,) float64 sum of logps over the mask, or its mean over the mask's tokens when per_token."""
    m = mask.to(torch.float64)
    total = (logps.double() * m).sum(1)
    return total / m.sum(1) if per_token else total


def _margin(pc, pr, rc, rr, cm, rm, per_token=False):
    """(B,) Δ = (π_c - ref_c) - (π_r - ref_r) on the sequence log-probs."""
    return (_seq(pc, cm, per_token) - _seq(rc, cm, per_token)) - (_seq(pr, rm, per_token) - _seq(rr, rm, per_token))


def _loss(margin, beta, loss_type):
    if loss_type == "ipo":
        return ((margin - 1 / (2 * beta)) ** 2).mean()
    return -F.logsigmoid(beta * margin).mean()


def dpo_loss(policy_chosen, policy_rejected, ref_chosen, ref_rejected, chosen_mask, rejected_mask,
             beta: float, *, loss_type="sigmoid"):
    margin = _margin(policy_chosen, policy_rejected, ref_chosen, ref_rejected, chosen_mask, rejected_mask,
                     per_token=loss_type == "ipo")
    return _loss(margin, beta, loss_type).to(policy_chosen.dtype)  # ()


def _response_mask(ctx, B, T, lengths):
    """(B, T) bool: each row's response of the given length after a prompt of random length."""
    m = torch.zeros(B, T, dtype=torch.bool)
    for b, n in enumerate(lengths):
        start = ctx.rng.randint(0, T - n)
        m[b, start:start + n] = True
    return m


def make_inputs(ctx, *, loss_type="sigmoid"):
    """Response masks with lengths from 1 to T (chosen: row 0 all T, row 1 a single token; rejected the
    other way round, with B >= 2), a prompt before each response and padding after it. On the response
    tokens policy and reference log-probs are drawn independently in [-4, -0.05]; off the masks they are
    drawn independently in [-8, 0], so they differ between policy and reference and would not cancel.
    params: beta (default 0.1); far: true plants row 0 at beta * margin = -120 (chosen tokens far less
    likely under the policy than under the reference, rejected ones equal), where log(sigmoid) underflows
    to -inf in float32."""
    B, T = ctx.sizes["B"], ctx.sizes["T"]
    p = ctx.params
    beta = float(p.get("beta", 0.1))
    c_len = [ctx.rng.randint(1, T) for _ in range(B)]
    r_len = [ctx.rng.randint(1, T) for _ in range(B)]
    c_len[0], r_len[0] = T, 1
    if B >= 2:
        c_len[1], r_len[1] = 1, T
    cm, rm = _response_mask(ctx, B, T, c_len), _response_mask(ctx, B, T, r_len)

    def logps(mask):
        on = -(torch.rand(B, T, generator=ctx.gen, dtype=torch.float64) * 3.95 + 0.05)
        off = -torch.rand(B, T, generator=ctx.gen, dtype=torch.float64) * 8
        return torch.where(mask, on, off)

    pc, rc, pr, rr = logps(cm), logps(cm), logps(rm), logps(rm)
    if p.get("far"):
        n = int(cm[0].sum())
        rc[0] = torch.where(cm[0], torch.full((T,), -1.0, dtype=torch.float64), rc[0])
        pc[0] = torch.where(cm[0], torch.full((T,), -1.0 - 120.0 / beta / n, dtype=torch.float64), pc[0])
        pr[0] = torch.where(rm[0], rr[0], pr[0])
    dt, mdt = ctx.dtype, ctx.mask_dtype
    return {"policy_chosen": pc.to(dt), "policy_rejected": pr.to(dt), "ref_chosen": rc.to(dt),
            "ref_rejected": rr.to(dt), "chosen_mask": cm.to(mdt), "rejected_mask": rm.to(mdt), "beta": beta}


def trap_token_mean(policy_chosen, policy_rejected, ref_chosen, ref_rejected, chosen_mask, rejected_mask,
                    beta: float):
    """Each sequence's log-prob averaged over its tokens instead of summed (IPO's length normalisation,
    as TRL applies it for loss_type="ipo"), then DPO's sigmoid loss."""
    margin = _margin(policy_chosen, policy_rejected, ref_chosen, ref_rejected, chosen_mask, rejected_mask,
                     per_token=True)
    return _loss(margin, beta, "sigmoid").to(policy_chosen.dtype)


def trap_masks_ignored(policy_chosen, policy_rejected, ref_chosen, ref_rejected, chosen_mask, rejected_mask,
                       beta: float, *, loss_type="sigmoid"):
    """Every position of each row counted, prompt and padding included."""
    full = torch.ones_like(chosen_mask, dtype=torch.bool)
    return dpo_loss(policy_chosen, policy_rejected, ref_chosen, ref_rejected, full, full, beta,
                    loss_type=loss_type)


def trap_log_sigmoid(policy_chosen, policy_rejected, ref_chosen, ref_rejected, chosen_mask, rejected_mask,
                     beta: float):
    """torch.log(torch.sigmoid(beta * margin)) in float32 (the contract's accumulation dtype): torch's
    float32 sigmoid is 0 below about -88.7, and the log gives -inf (the loss inf)."""
    margin = _margin(policy_chosen, policy_rejected, ref_chosen, ref_rejected, chosen_mask, rejected_mask)
    return -torch.log(torch.sigmoid(beta * margin.float())).mean().to(policy_chosen.dtype)


def trap_swapped(policy_chosen, policy_rejected, ref_chosen, ref_rejected, chosen_mask, rejected_mask,
                 beta: float, *, loss_type="sigmoid"):
    """The chosen and the rejected responses exchanged: the margin's sign turned around."""
    return dpo_loss(policy_rejected, policy_chosen, ref_rejected, ref_chosen, rejected_mask, chosen_mask, beta,
                    loss_type=loss_type)


def trap_sigmoid_loss(policy_chosen, policy_rejected, ref_chosen, ref_rejected, chosen_mask, rejected_mask,
                      beta: float):
    """The contract's DPO sigmoid loss on summed log-probs, where the variant asks for IPO."""
    return dpo_loss(policy_chosen, policy_rejected, ref_chosen, ref_rejected, chosen_mask, rejected_mask, beta)


def trap_ipo_summed(policy_chosen, policy_rejected, ref_chosen, ref_rejected, chosen_mask, rejected_mask,
                    beta: float):
    """IPO's squared loss on summed sequence log-probs, without TRL's length normalisation."""
    margin = _margin(policy_chosen, policy_rejected, ref_chosen, ref_rejected, chosen_mask, rejected_mask)
    return _loss(margin, beta, "ipo").to(policy_chosen.dtype)
