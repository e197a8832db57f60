"""The built-in generators and oracles a spec may name, with their arguments,
importable without torch, so that `gen:` and `oracle:` are checked when a spec
is parsed (a misspelt name is a SpecError with its line, not a failure when
the drill is first prepared).

The real registries are `grader.cases.generators.GENERATORS` and
`grader.oracles.registry()` (they import torch); tests/grader/spec/test_package.py
keeps this list equal to them. A new generator or oracle is added in both.
"""
from __future__ import annotations

# name -> the keyword options it takes after (ctx, shape, dtype)
GENERATORS: dict[str, tuple[str, ...]] = {
    "randn": ("scale", "offset"),
    "uniform": ("low", "high"),
    "randint": ("low", "high"),
    "padding_mask": ("padding",),
    "ones": (),
    "arange": (),
    "literal": ("data",),
}

# name -> its parameters (the function's arguments, in order)
ORACLES: dict[str, tuple[str, ...]] = {
    "batch_stats": ("x",),
    "broadcast_shapes": ("a", "b"),
    "cdist_squared": ("A", "B"),
    "class_counts_bincount": ("labels", "K"),
    "conv2d": ("x", "weight", "stride", "padding"),
    "conv2d_out_size": ("H", "k", "s", "p", "d"),
    "conv_transpose2d_out_size": ("H", "k", "s", "p", "output_padding"),
    "detr_hungarian": ("pred_logits", "pred_boxes", "gt_labels", "gt_boxes", "w_class", "w_l1", "w_giou"),
    "einsum_scores": ("q", "k"),
    "fold_unpatchify": ("tokens", "C", "H", "W", "P"),
    "layer_norm": ("x", "weight", "bias", "eps"),
    "lm_losses_ce": ("logits", "ids", "loss_mask"),
    "mse_per_sample": ("pred", "target"),
    "one_hot_torch": ("labels", "K"),
    "per_class_nms": ("boxes", "scores", "classes", "iou_threshold"),
    "sdpa_cross_attention": ("Q", "K", "V", "enc_pad_mask", "H"),
    "sdpa_decode_step": ("q_new", "k_new", "v_new", "k_cache", "v_cache"),
    "sdpa_gqa": ("q", "k", "v"),
    "sdpa_mha": ("Q", "K", "V", "pad_mask", "H"),
    "token_logprobs_ce": ("logits", "ids"),
    "torchvision_box_iou": ("a", "b"),
    "unfold_patchify": ("images", "P"),
}


def unknown(kind: str, name: str, table: dict[str, tuple[str, ...]]) -> str:
    """The problem for a name the table lacks: the closest name, and every name there is."""
    import difflib

    close = difflib.get_close_matches(name[:100], sorted(table), n=1)
    hint = f"did you mean '{close[0]}'? " if close else ""
    return f"unknown {kind} {name[:100]!r}; {hint}known: {', '.join(sorted(table))}, or py:name"
