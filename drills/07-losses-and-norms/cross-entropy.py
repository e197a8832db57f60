"""Reference and traps for cross-entropy.

Every function takes the variant keyword (drills/README.md, "Variants") `smoothing`: uniform, the
contract and F.cross_entropy(label_smoothing=eps)'s rule (eps/V on every class, the target
included, so the target keeps 1 - eps + eps/V), or others, fairseq's label_smoothed_nll_loss
(eps/(V-1) on each of the V-1 other classes, exactly 1 - eps on the target). The defaults are
the contract.

Memory: the peak is the (B, T, V) log-softmax beside the (B, T, V) logits (plus (B, T) terms),
so it grows linearly in each of B, T and V (exponent 1 in each)."""
import torch


def make_inputs(ctx):
    """logits (B, T, V), targets (B, T) int64, label_smoothing and ignore_index.

    params: eps (label smoothing, default 0.0); ignore ("default": -100, "last": V - 1, a real class
    id); style: some (every row keeps at least one position, the counts of ignored positions
    differ), unequal (row 0 keeps every position, each other row keeps one), all (every position
    ignored), far (as some, and in each row one kept target sits 120-130 below its row's max);
    logit_range: logits uniform in [-r, r] instead of randn.
    Every loop is bounded by B * T, so the builder is quick at every size in range.
    """
    B, T, V = ctx.sizes["B"], ctx.sizes["T"], ctx.sizes["V"]
    eps = float(ctx.params.get("eps", 0.0))
    ignore_index = V - 1 if ctx.params.get("ignore") == "last" else -100
    style = str(ctx.params.get("style", "some"))
    r = ctx.params.get("logit_range")
    if r is not None:
        logits = (torch.rand(B, T, V, generator=ctx.gen) * 2.0 - 1.0) * float(r)
    else:
        logits = torch.randn(B, T, V, generator=ctx.gen) * 2.0
    high = max(V - 1, 1) if ignore_index == V - 1 else V  # a kept target is never the ignored id (V >= 2)
    targets = torch.randint(0, high, (B, T), generator=ctx.gen)
    keep = torch.ones(B, T, dtype=torch.bool)
    if style == "all":
        keep[:] = False
    elif style == "unequal":
        for b in range(1, B):
            keep[b] = False
            keep[b, ctx.rng.randrange(T)] = True
    else:
        for b in range(B):
            n_ignored = ctx.rng.randrange(T)  # 0 .. T - 1 ignored: at least one kept
            for t in ctx.rng.sample(range(T), n_ignored):
                keep[b, t] = False
        if T > 1 and bool(keep.all()):  # some position ignored, and its row still keeps T - 1
            keep[ctx.rng.randrange(B), ctx.rng.randrange(T)] = False
    if style == "far":
        for b in range(B):
            kept = [t for t in range(T) if keep[b, t]]
            if not kept:
                continue
            t = kept[ctx.rng.randrange(len(kept))]
            logits[b, t, targets[b, t]] = logits[b, t].max() - ctx.rng.uniform(120.0, 130.0)
    targets = targets.masked_fill(~keep, ignore_index)
    return {"logits": logits.to(ctx.dtype), "targets": targets, "label_smoothing": eps,
            "ignore_index": ignore_index}


def _logp(logits):
    work = logits.float() if logits.dtype == torch.float16 else logits
    return torch.log_softmax(work, dim=-1)  # (B, T, V)


def _per_position(logp, targets, label_smoothing, ignore_index, smoothing):
    """(B, T) smoothed loss per position and the (B, T) bool of kept positions."""
    V = logp.shape[-1]
    keep = targets != ignore_index  # (B, T)
    safe = targets.masked_fill(~keep, 0)  # an ignored position gathers class 0, then is dropped
    nll = -logp.gather(-1, safe[..., None])[..., 0]  # (B, T)
    eps = float(label_smoothing)
    if eps == 0.0:
        return nll, keep
    if smoothing == "others":  # fairseq: eps/(V-1) on each other class, 1 - eps on the target
        others = -logp.sum(-1) - nll  # (B, T): sum over the V - 1 other classes
        return (1.0 - eps) * nll + eps / (V - 1) * others, keep
    return (1.0 - eps) * nll + eps * (-logp.mean(-1)), keep  # eps/V on every class


def _reduce(per, keep):
    total = per.masked_fill(~keep, 0.0).sum()  # ()
    return total / keep.sum().clamp_min(1)  # exactly 0.0 when every position is ignored


def cross_entropy(logits, targets, label_smoothing=0.0, ignore_index=-100, *, smoothing="uniform"):
    per, keep = _per_position(_logp(logits), targets, label_smoothing, ignore_index, smoothing)
    return _reduce(per, keep)


# ------------------------------------------------------------------- matchers


def match_non_finite(call, got, trap_out):
    """log(softmax) gives -log(0) = inf at an underflowed probability; written without a branch on
    eps, 0 * inf makes it NaN instead. Either non-finite 0-d result where the trap's is non-finite
    is that mistake."""
    if not isinstance(got, torch.Tensor) or not isinstance(trap_out, torch.Tensor):
        return False
    if tuple(got.shape) != () or not got.is_floating_point():
        return False
    return (not bool(torch.isfinite(trap_out))) and not bool(torch.isfinite(got))


# ------------------------------------------------------------------- traps


def trap_nan_all_ignored(logits, targets, label_smoothing=0.0, ignore_index=-100, *, smoothing="uniform"):
    """sum / count with no guard: 0 / 0 = NaN when every position is ignored (F.cross_entropy's own
    answer with reduction='mean')."""
    per, keep = _per_position(_logp(logits), targets, label_smoothing, ignore_index, smoothing)
    return per.masked_fill(~keep, 0.0).sum() / keep.sum()


def trap_divide_by_all(logits, targets, label_smoothing=0.0, ignore_index=-100, *, smoothing="uniform"):
    """The kept losses summed, then divided by B * T, every position, ignored ones included."""
    per, keep = _per_position(_logp(logits), targets, label_smoothing, ignore_index, smoothing)
    return per.masked_fill(~keep, 0.0).sum() / targets.numel()


def trap_log_of_softmax(logits, targets, label_smoothing=0.0, ignore_index=-100, *, smoothing="uniform"):
    """log(softmax(x)): a probability that underflows to 0 gives -inf. Written the way it is usually
    written, so that every route to a non-finite loss shows: the smoothing term kept at eps = 0
    (0 * inf = NaN) and the mask multiplied in (an ignored position's inf * 0 = NaN); the matcher
    accepts any non-finite loss where this one is non-finite."""
    work = logits.float() if logits.dtype == torch.float16 else logits
    logp = torch.softmax(work, dim=-1).log()  # (B, T, V), -inf where a probability underflows
    V = logp.shape[-1]
    keep = targets != ignore_index
    nll = -logp.gather(-1, targets.clamp(0, V - 1)[..., None])[..., 0]  # (B, T)
    eps = float(label_smoothing)
    if smoothing == "others":
        smooth = (-logp.sum(-1) - nll) / (V - 1)
    else:
        smooth = -logp.mean(-1)
    per = (1.0 - eps) * nll + eps * smooth
    m = keep.to(per.dtype)
    return (per * m).sum() / m.sum().clamp_min(1)


def trap_fairseq_smoothing(logits, targets, label_smoothing=0.0, ignore_index=-100):
    """eps/(V-1) on each other class and 1 - eps on the target: fairseq's convention."""
    return cross_entropy(logits, targets, label_smoothing, ignore_index, smoothing="others")


def trap_uniform_smoothing(logits, targets, label_smoothing=0.0, ignore_index=-100):
    """eps/V on every class, the target included: PyTorch's convention, under fairseq's."""
    return cross_entropy(logits, targets, label_smoothing, ignore_index, smoothing="uniform")
