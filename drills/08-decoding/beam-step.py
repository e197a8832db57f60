"""Reference and traps for beam-step: one step of beam search over B samples of K beams each.

Every function takes the variant keyword (drills/README.md, "Variants"): `cands` says how many
candidates each sample keeps: K (the contract) or 2K (fairseq's BeamSearch.step and Hugging Face's
beam search keep twice the beams, so that beams ending in EOS can be set aside). The defaults are the
contract."""
import torch


def _n_best(K, cands):
    return K if cands == "k" else 2 * K


def beam_step(logprobs, beam_scores, K: int, first: bool, *, cands="k"):
    BK, V = logprobs.shape
    B = BK // K
    scores = (beam_scores[:, None] + logprobs).view(B, K, V)  # every extension of every beam
    if first:
        scores = scores[:, :1]  # (B, 1, V): the K beams are identical copies, only beam 0 competes
    top, flat = scores.reshape(B, -1).topk(_n_best(K, cands), dim=-1)  # (B, n), by descending score
    return flat % V, flat // V, top  # tokens, parents (beam within the sample), scores


# ------------------------------------------------------------------ inputs


def make_inputs(ctx, *, cands="k"):
    """Log-probs and beam scores in [-16, 0] on a grid (1/64 in fp16, 1/1024 otherwise), so every sum
    is exact in the case dtype, and no two candidates of a sample tie, by construction: in grid units a
    candidate is -(a + b) with a = K * r (r distinct within a beam) and b = k + K * t for beam k, so
    a + b is k modulo K and distinct within the beam. With `first` the K rows of a sample are copies
    (the beams of step 0). params: first, style (random; one-beam: one beam's best candidates beat
    every other beam's; reorder: the beam with the best single log-prob has the worst score)."""
    B, K, V = ctx.sizes["B"], ctx.sizes["K"], ctx.sizes["V"]
    first = bool(ctx.params.get("first", False))
    style = str(ctx.params.get("style", "random"))
    n = _n_best(K, cands)
    step = 1 / 64 if ctx.dtype == torch.float16 else 1 / 1024
    G = round(16 / step)  # grid units in [-16, 0]: a and b lie in [0, G]
    R = G // K  # r in [0, R): a = K * r <= G - K
    T = (G - K) // K  # t in [0, T]: b = k + K * t <= G
    lp = torch.empty(B, K, V, dtype=torch.float64)
    sc = torch.empty(B, K, dtype=torch.float64)
    for b in range(B):
        if first:
            r = torch.randperm(R, generator=ctx.gen)[:V].double()
            t = int(torch.randint(0, T + 1, (1,), generator=ctx.gen))
            lp[b] = -(K * r) * step
            sc[b] = -(K * t) * step
            continue
        r = torch.stack([torch.randperm(R, generator=ctx.gen)[:V] for _ in range(K)]).double()  # (K, V)
        t = torch.randint(0, T // 2, (K,), generator=ctx.gen).double()
        if style == "one-beam":
            j = int(torch.randint(1 if K > 1 else 0, K, (1,), generator=ctx.gen))
            L = max(2 * n, 8)
            head = torch.randperm(L, generator=ctx.gen)[:n]
            tail = L + torch.randperm(R - L, generator=ctx.gen)[:V - n]
            r[j] = torch.cat([head, tail])[torch.randperm(V, generator=ctx.gen)].double()
            t = torch.randint(L + 1, T + 1, (K,), generator=ctx.gen).double()  # every other beam far behind
            t[j] = 0.0  # beam j's n best sums beat every other beam's best
        elif style == "reorder" and K > 1:
            j = int(r.min(dim=1).values.argmin())  # the beam holding the best single log-prob
            t[j] = float(T)  # ... starts with the worst score
        lp[b] = -(K * r) * step
        sc[b] = -(torch.arange(K, dtype=torch.float64) + K * t) * step
    return {"logprobs": lp.reshape(B * K, V).to(ctx.dtype), "beam_scores": sc.reshape(B * K).to(ctx.dtype),
            "K": K, "first": first}


# ------------------------------------------------------------------ traps


def trap_first_ignored(logprobs, beam_scores, K: int, first: bool, *, cands="k"):
    """Every beam competes at step 0 too: the K copies give the best token K times."""
    BK, V = logprobs.shape
    scores = (beam_scores[:, None] + logprobs).view(BK // K, K * V)
    top, flat = scores.topk(_n_best(K, cands), dim=-1)
    return flat % V, flat // V, top


def trap_best_per_beam(logprobs, beam_scores, K: int, first: bool, *, cands="k"):
    """Each beam extended by its own best token only, the K results sorted: two winners from one beam
    are impossible."""
    BK, V = logprobs.shape
    best, tok = (beam_scores[:, None] + logprobs).max(dim=-1)  # (B*K,)
    top, parent = best.view(BK // K, K).sort(dim=-1, descending=True)  # (B, K)
    return tok.view(BK // K, K).gather(1, parent), parent, top


def trap_k_for_v(logprobs, beam_scores, K: int, first: bool, *, cands="k"):
    """The flat index split with K instead of V: parent = idx // K, token = idx % K."""
    BK, V = logprobs.shape
    scores = (beam_scores[:, None] + logprobs).view(BK // K, K, V)
    if first:
        scores = scores[:, :1]
    top, flat = scores.reshape(BK // K, -1).topk(_n_best(K, cands), dim=-1)
    return flat % K, flat // K, top


def trap_no_beam_score(logprobs, beam_scores, K: int, first: bool, *, cands="k"):
    """The candidates ranked by this step's log-prob alone, the beams' running scores never added."""
    BK, V = logprobs.shape
    scores = logprobs.view(BK // K, K, V)
    if first:
        scores = scores[:, :1]
    top, flat = scores.reshape(BK // K, -1).topk(_n_best(K, cands), dim=-1)
    return flat % V, flat // V, top


def trap_k_candidates(logprobs, beam_scores, K: int, first: bool):
    """The contract's K candidates where this variant keeps 2K."""
    return beam_step(logprobs, beam_scores, K, first)


# ------------------------------------------------------------------ matchers


def match_tied_parents(call, got, trap_out):
    """The trap's tokens and scores, and per sample the trap's parents in another order: at step 0 the K
    beams are copies, so which copy of a tied candidate comes first is the solution's sort's choice."""
    if not (isinstance(got, (tuple, list)) and len(got) == 3):
        return False
    tok, par, sc = got
    t_tok, t_par, t_sc = trap_out
    if not all(isinstance(x, torch.Tensor) for x in (tok, par, sc)):
        return False
    if tok.dtype != torch.int64 or par.dtype != torch.int64 or tok.shape != t_tok.shape or par.shape != t_par.shape:
        return False
    if not torch.equal(tok, t_tok) or sc.shape != t_sc.shape:
        return False
    if not bool(((sc.double() - t_sc.double()).abs() <= 1e-3 * (1 + t_sc.double().abs())).all()):
        return False
    return torch.equal(par.sort(dim=-1).values, t_par.sort(dim=-1).values)
