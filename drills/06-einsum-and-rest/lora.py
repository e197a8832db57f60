"""Reference, checker, trap matchers and traps for lora.

The forward functions take the variant keyword (drills/README.md, "Variants"): `scaling` says how
the update is scaled (alpha_r: alpha / r, the contract; rslora: alpha / sqrt(r)). The default is
the contract."""
import math

import torch
import torch.nn as nn


def lora_init(d_in: int, d_out: int, r: int):
    A = nn.Parameter(torch.randn(r, d_in) * 0.01)  # (r, d_in): random
    B = nn.Parameter(torch.zeros(d_out, r))  # (d_out, r): zero, so the adapter starts as a no-op
    return A, B


def _scale(alpha, r, scaling):
    """The update's scale: alpha / r, or alpha / sqrt(r) for rsLoRA."""
    return alpha / r if scaling == "alpha_r" else alpha / math.sqrt(r)


def lora_forward(x, W, A, B, alpha: float, *, scaling="alpha_r"):
    r = A.shape[0]
    base = x @ W.T  # (..., d_out), F.linear(x, W)
    return base + (x @ A.T) @ B.T * _scale(alpha, r, scaling)  # (..., r) then (..., d_out)


def lora_param_count(d_in: int, d_out: int, r: int) -> int:
    return r * (d_in + d_out)  # A has r * d_in, B has d_out * r


# ------------------------------------------------------------ lora_init check


def _pair(got):
    if isinstance(got, tuple) and len(got) == 2 and all(isinstance(t, torch.Tensor) for t in got):
        return got
    return None


def check_lora_init(call, got):
    """Random A cannot be compared by value: check shapes, dtype, B all zeros, A not."""
    d_in, d_out, r = (call.sizes[n] for n in ("d_in", "d_out", "r"))
    pair = _pair(got)
    if pair is None:
        if type(got).__name__ == "SeqValue":
            return "expected a tuple (A, B) of two tensors, got a list: return (A, B)"
        kind = f"a tuple of {len(got)}" if isinstance(got, tuple) else type(got).__name__
        return f"expected a tuple (A, B) of two tensors, got {kind}"
    A, B = pair
    for name, t, want in (("A", A, (r, d_in)), ("B", B, (d_out, r))):
        if tuple(t.shape) != want:
            return (f"{name} has shape {tuple(t.shape)}; expected {want} = "
                    + ("(r, d_in)" if name == "A" else "(d_out, r)"))
        if t.dtype != torch.float32:
            return f"{name} is {str(t.dtype).replace('torch.', '')}; expected float32"
        if not bool(torch.isfinite(t).all()):
            return f"{name} has NaN or infinite values"
    if bool((B != 0).any()):
        return f"B must start at exactly zero ({int((B != 0).sum())} of {B.numel()} entries are not), so the adapter adds nothing at step 0"
    if not bool((A != 0).any()):
        return "A is all zeros: with B also zero no gradient reaches either matrix; initialise A at random"
    return None


def match_random_b(call, got, trap_out):
    pair = _pair(got)
    return bool(pair and tuple(pair[1].shape) == (call.sizes["d_out"], call.sizes["r"])
                and (pair[1] != 0).any() and (pair[0] != 0).any())


def match_both_zero(call, got, trap_out):
    pair = _pair(got)
    return bool(pair and not (pair[0] != 0).any() and not (pair[1] != 0).any())


def match_zero_a_random_b(call, got, trap_out):
    pair = _pair(got)
    return bool(pair and not (pair[0] != 0).any() and (pair[1] != 0).any())


def match_transposed_shapes(call, got, trap_out):
    pair = _pair(got)
    d_in, d_out, r = (call.sizes[n] for n in ("d_in", "d_out", "r"))
    return bool(pair and tuple(pair[0].shape) == (d_in, r) and tuple(pair[1].shape) == (r, d_out))


# ------------------------------------------------------------------ traps


def trap_random_b(d_in: int, d_out: int, r: int):
    return torch.randn(r, d_in) * 0.01, torch.randn(d_out, r) * 0.01


def trap_both_zero(d_in: int, d_out: int, r: int):
    return torch.zeros(r, d_in), torch.zeros(d_out, r)


def trap_zero_a_random_b(d_in: int, d_out: int, r: int):
    return torch.zeros(r, d_in), torch.randn(d_out, r) * 0.01


def trap_transposed_shapes(d_in: int, d_out: int, r: int):
    return torch.randn(d_in, r) * 0.01, torch.zeros(r, d_out)


def trap_alpha_not_over_r(x, W, A, B, alpha: float, *, scaling="alpha_r"):
    return x @ W.T + (x @ A.T) @ B.T * alpha


def trap_no_scale(x, W, A, B, alpha: float):
    return x @ W.T + (x @ A.T) @ B.T


def trap_a_b_swapped(x, W, A, B, alpha: float, *, scaling="alpha_r"):
    # A read as (d_in, r) and B as (r, d_out): only runs when d_in == d_out, with the wrong product
    return x @ W.T + (x @ B) @ A * _scale(alpha, A.shape[0], scaling)


def trap_alpha_over_r(x, W, A, B, alpha: float):
    """The contract's alpha / r where the variant is rsLoRA's alpha / sqrt(r)."""
    return lora_forward(x, W, A, B, alpha)


def trap_full_matrix_count(d_in: int, d_out: int, r: int) -> int:
    return d_in * d_out
