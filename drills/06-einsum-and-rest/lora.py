"""Reference, checker, trap matchers and traps for lora.

The functions take the variant keywords (drills/README.md, "Variants"): `scaling` says how the update
is scaled (alpha_r: alpha / r, the contract; rslora: alpha / sqrt(r)) and `layout` how W, A and B
are stored (linear: nn.Linear weights (out, in), the contract; kernel: Keras-style kernels (in, out),
so W is (d_in, d_out), A (d_in, r) and B (r, d_out)). The defaults are the contract."""
import math

import torch
import torch.nn as nn


def _scale(alpha, r, scaling):
    """The update's scale: alpha / r, or alpha / sqrt(r) for rsLoRA."""
    return alpha / r if scaling == "alpha_r" else alpha / math.sqrt(r)


def _stored(A, B, layout):
    """A (r, d_in) and B (d_out, r), stored the layout's way: transposed for kernels."""
    return (A.T, B.T) if layout == "kernel" else (A, B)


def _as_linear(W, A, B, layout):
    """W, A and B as nn.Linear weights, (out, in), whatever layout they came in."""
    return (W.T, A.T, B.T) if layout == "kernel" else (W, A, B)


def lora_init(d_in: int, d_out: int, r: int, *, layout="linear"):
    A, B = _stored(torch.randn(r, d_in) * 0.01, torch.zeros(d_out, r), layout)  # A random, B zero
    return nn.Parameter(A.contiguous()), nn.Parameter(B.contiguous())  # B = 0: the adapter starts as a no-op


def lora_forward(x, W, A, B, alpha: float, *, scaling="alpha_r", layout="linear"):
    W, A, B = _as_linear(W, A, B, layout)  # (d_out, d_in), (r, d_in), (d_out, r)
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


def _wanted(call):
    """The (A, B) shapes this call asks for, with their dimension names: `(r, d_in)`."""
    return [(tuple(call.sizes[d] for d in ret.shape), f"({', '.join(ret.shape)})") for ret in call.function.returns]


def check_lora_init(call, got):
    """Random A cannot be compared by value: check shapes, dtype, B all zeros, A not."""
    pair = _pair(got)
    if pair is None:
        if type(got).__name__ == "SeqValue":
            return "expected a tuple (A, B) of two tensors, got a list: return (A, B)"
        kind = f"a tuple of {len(got)}" if isinstance(got, tuple) else type(got).__name__
        return f"expected a tuple (A, B) of two tensors, got {kind}"
    A, B = pair
    for name, t, (want, named) in zip(("A", "B"), (A, B), _wanted(call)):
        if tuple(t.shape) != want:
            return f"{name} has shape {tuple(t.shape)}; expected {want} = {named}"
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
    return bool(pair and tuple(pair[1].shape) == _wanted(call)[1][0]
                and (pair[1] != 0).any() and (pair[0] != 0).any())


def match_both_zero(call, got, trap_out):
    pair = _pair(got)
    return bool(pair and not (pair[0] != 0).any() and not (pair[1] != 0).any())


def match_zero_a_random_b(call, got, trap_out):
    pair = _pair(got)
    return bool(pair and not (pair[0] != 0).any() and (pair[1] != 0).any())


def match_transposed_shapes(call, got, trap_out):
    """A and B shaped as the trap's, the other layout's (r, d_in) and (d_out, r) read the other way round."""
    pair = _pair(got)
    return bool(pair and tuple(pair[0].shape) == tuple(trap_out[0].shape)
                and tuple(pair[1].shape) == tuple(trap_out[1].shape))


# ------------------------------------------------------------------ traps


def trap_random_b(d_in: int, d_out: int, r: int, *, layout="linear"):
    return _stored(torch.randn(r, d_in) * 0.01, torch.randn(d_out, r) * 0.01, layout)


def trap_both_zero(d_in: int, d_out: int, r: int, *, layout="linear"):
    return _stored(torch.zeros(r, d_in), torch.zeros(d_out, r), layout)


def trap_zero_a_random_b(d_in: int, d_out: int, r: int, *, layout="linear"):
    return _stored(torch.zeros(r, d_in), torch.randn(d_out, r) * 0.01, layout)


def trap_transposed_shapes(d_in: int, d_out: int, r: int, *, layout="linear"):
    # the other layout's shapes: (d_in, r) and (r, d_out) for linear, (r, d_in) and (d_out, r) for kernel
    return _stored(torch.randn(r, d_in) * 0.01, torch.zeros(d_out, r), "linear" if layout == "kernel" else "kernel")


def trap_alpha_not_over_r(x, W, A, B, alpha: float, *, scaling="alpha_r", layout="linear"):
    W, A, B = _as_linear(W, A, B, layout)
    return x @ W.T + (x @ A.T) @ B.T * alpha


def trap_no_scale(x, W, A, B, alpha: float, *, layout="linear"):
    W, A, B = _as_linear(W, A, B, layout)
    return x @ W.T + (x @ A.T) @ B.T


def trap_a_b_swapped(x, W, A, B, alpha: float, *, scaling="alpha_r"):
    # A read as (d_in, r) and B as (r, d_out): only runs when d_in == d_out, with the wrong product
    return x @ W.T + (x @ B) @ A * _scale(alpha, A.shape[0], scaling)


def trap_alpha_over_r(x, W, A, B, alpha: float, *, layout="linear"):
    """The contract's alpha / r where the variant is rsLoRA's alpha / sqrt(r)."""
    return lora_forward(x, W, A, B, alpha, layout=layout)


def trap_linear_layout(x, W, A, B, alpha: float, *, scaling="alpha_r"):
    """The contract's nn.Linear forward, x @ W.T + (x @ A.T) @ B.T, applied to (in, out) kernels."""
    return lora_forward(x, W, A, B, alpha, scaling=scaling)


def trap_full_matrix_count(d_in: int, d_out: int, r: int) -> int:
    return d_in * d_out
