"""Reference and traps for kl-distill.

Every function takes the variant keyword (drills/README.md, "Variants") `direction`: forward, the
contract and Hinton et al.'s distillation loss, KL(teacher || student) = sum_v p (log p - log q),
or reverse, KL(student || teacher) = sum_v q (log q - log p), TRL's generalized_jsd_loss with
beta = 1. Both keep the tau^2 factor. The defaults are the contract.

Memory: the peak is a few (B, V) tensors (the two log-softmaxes, the teacher's probabilities and
their product) next to the (B, V) inputs, so it grows linearly in B and in V (exponent 1 each)."""
import torch


def make_inputs(ctx):
    """student_logits (B, V), teacher_logits (B, V) in the case dtype, temperature (float).

    params: tau (the temperature, default 1.0); teacher: random (randn * 2, like the student),
    spread (uniform over [-100, 100], a spread of 200: at tau = 0.5 many of the teacher's
    probabilities are exactly 0 in float32 and fp16) or same (the teacher is the student).
    The student is always randn * 2, so its probabilities never underflow.
    """
    B, V = ctx.sizes["B"], ctx.sizes["V"]
    student = torch.randn(B, V, generator=ctx.gen) * 2.0
    kind = str(ctx.params.get("teacher", "random"))
    if kind == "same":
        teacher = student.clone()
    elif kind == "spread":
        teacher = torch.rand(B, V, generator=ctx.gen) * 200.0 - 100.0
    else:
        teacher = torch.randn(B, V, generator=ctx.gen) * 2.0
    return {"student_logits": student.to(ctx.dtype), "teacher_logits": teacher.to(ctx.dtype),
            "temperature": float(ctx.params.get("tau", 1.0))}


def _logps(student_logits, teacher_logits, temperature):
    """(log q, log p): the student's and the teacher's log-probabilities at the temperature."""
    s, t = (x.float() if x.dtype == torch.float16 else x for x in (student_logits, teacher_logits))
    return torch.log_softmax(s / temperature, dim=-1), torch.log_softmax(t / temperature, dim=-1)


def _kl(log_from, log_to):
    """(B,) KL(from || to) per row: sum_v from * (log from - log to); 0 where from is 0."""
    return (log_from.exp() * (log_from - log_to)).sum(-1)


def _ordered(logq, logp, direction):
    return (logp, logq) if direction == "forward" else (logq, logp)


def distill_loss(student_logits, teacher_logits, temperature, *, direction="forward"):
    logq, logp = _logps(student_logits, teacher_logits, temperature)  # (B, V) each
    return temperature ** 2 * _kl(*_ordered(logq, logp, direction)).mean()  # batchmean


# ------------------------------------------------------------------- traps


def trap_no_tau_squared(student_logits, teacher_logits, temperature, *, direction="forward"):
    """The KL at temperature tau without the tau^2 that keeps its gradients on the hard loss's scale."""
    logq, logp = _logps(student_logits, teacher_logits, temperature)
    return _kl(*_ordered(logq, logp, direction)).mean()


def trap_mean_over_classes(student_logits, teacher_logits, temperature, *, direction="forward"):
    """F.kl_div(..., reduction="mean"): the elementwise terms averaged over B * V, not summed over V."""
    logq, logp = _logps(student_logits, teacher_logits, temperature)
    log_from, log_to = _ordered(logq, logp, direction)
    return temperature ** 2 * (log_from.exp() * (log_from - log_to)).mean()


def trap_log_of_softmax(student_logits, teacher_logits, temperature, *, direction="forward"):
    """Both log-probabilities as the log of softmax probabilities: a probability that underflows to
    0 gives log 0 = -inf, so 0 * (-inf) = NaN (forward) or q * inf = inf (reverse)."""
    s, t = (x.float() if x.dtype == torch.float16 else x for x in (student_logits, teacher_logits))
    q = torch.softmax(s / temperature, dim=-1)
    p = torch.softmax(t / temperature, dim=-1)
    if direction == "forward":
        kl = (p * (p.log() - q.log())).sum(-1)
    else:
        kl = (q * (q.log() - p.log())).sum(-1)
    return temperature ** 2 * kl.mean()


def trap_probs_as_input(student_logits, teacher_logits, temperature, *, direction="forward"):
    """F.kl_div(softmax, target): the input must be log-probabilities; probabilities there give
    sum target * (log target - probs)."""
    logq, logp = _logps(student_logits, teacher_logits, temperature)
    log_target, log_input = _ordered(logq, logp, direction)
    target = log_target.exp()
    terms = torch.xlogy(target, target) - target * log_input.exp()  # F.kl_div(input=probs, target)
    return temperature ** 2 * terms.sum(-1).mean()


def trap_reverse_kl(student_logits, teacher_logits, temperature):
    """KL(student || teacher): F.kl_div's arguments swapped, TRL's beta = 1."""
    return distill_loss(student_logits, teacher_logits, temperature, direction="reverse")


def trap_forward_kl(student_logits, teacher_logits, temperature):
    """KL(teacher || student): Hinton's direction, the default's answer under the reverse variant."""
    return distill_loss(student_logits, teacher_logits, temperature, direction="forward")
