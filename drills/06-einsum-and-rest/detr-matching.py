"""Reference, input builders, checker and traps for detr-matching.

The hungarian_match functions, the builder and the checker take the variant keyword
`box_format` (drills/README.md, "Variants"): xyxy (corners, the contract) or cxcywh (centre and
size, DETR's pred_boxes and target boxes, with the L1 term on (cx, cy, w, h) and the GIoU on
the boxes converted to corners, as DETR's HungarianMatcher does)."""
import torch
from scipy.optimize import linear_sum_assignment
from torchvision.ops import box_convert, generalized_box_iou


def _cost(pred_logits, pred_boxes, gt_labels, gt_boxes, w_class, w_l1, w_giou, *, p=1.0, probs=True, giou_sign=-1.0,
          box_format="xyxy", convert_for_giou=True):
    """(Q, N) matching cost in float64 (variants for the traps and the input search). The L1 term
    is on the boxes as given; the GIoU on them as corners (unless convert_for_giou is False)."""
    logits = pred_logits.double()
    pb, gb = pred_boxes.double(), gt_boxes.double()
    cls = logits.softmax(-1) if probs else logits  # (Q, K+1)
    cost_class = -cls[:, gt_labels]  # (Q, N)
    cost_box = torch.cdist(pb, gb, p=p)  # (Q, N)
    if convert_for_giou:
        pb, gb = box_convert(pb, box_format, "xyxy"), box_convert(gb, box_format, "xyxy")
    cost_giou = giou_sign * generalized_box_iou(pb, gb)  # (Q, N)
    return w_class * cost_class + w_l1 * cost_box + w_giou * cost_giou


def _assign(cost):
    rows, cols = linear_sum_assignment(cost.cpu().numpy())  # scipy works on the CPU; come back to cost's device
    return (torch.as_tensor(rows, dtype=torch.int64, device=cost.device),
            torch.as_tensor(cols, dtype=torch.int64, device=cost.device))


def hungarian_match(pred_logits, pred_boxes, gt_labels, gt_boxes, w_class=1.0, w_l1=5.0, w_giou=2.0, *,
                    box_format="xyxy"):
    cost = _cost(pred_logits, pred_boxes, gt_labels, gt_boxes, w_class, w_l1, w_giou, box_format=box_format)  # (Q, N)
    query_idx, gt_idx = _assign(cost)  # rows come back sorted, one per ground truth
    return query_idx, gt_idx


def match_targets(query_idx, gt_idx, gt_labels, Q, no_object):
    target = torch.full((Q,), no_object, dtype=torch.int64, device=gt_labels.device)  # (Q,) every query starts as "no object"
    target[query_idx] = gt_labels[gt_idx]  # query query_idx[i] is paired with ground truth gt_idx[i]
    return target


# ------------------------------------------------------------------ inputs

def _boxes(ctx, n, dtype):
    c = torch.rand(n, 2, generator=ctx.gen, dtype=torch.float64) * 0.7 + 0.15  # centres
    wh = torch.rand(n, 2, generator=ctx.gen, dtype=torch.float64) * 0.45 + 0.05
    return torch.cat([c - wh / 2, c + wh / 2], dim=1).to(dtype)  # (n, 4) x1y1x2y2


_VARIANTS = {
    "l2": {"p": 2.0},
    "logits": {"probs": False},
    "giou_sign": {"giou_sign": 1.0},
    "raw_giou": {"convert_for_giou": False},
}


def _separates(args, w, true, best, name, box_format):
    """Does the wrong cost `name` give a matching clearly dearer than the optimum (or no matching)?"""
    try:
        vq, vg = _assign(_cost(*args, **w, box_format=box_format, **_VARIANTS[name]))
    except ValueError:  # a NaN cost (GIoU of boxes that are not corners): the solver refuses it
        return True
    return float(true[vq, vg].sum()) >= best + 0.05


def make_match_inputs(ctx, *, box_format="xyxy"):
    """Random predictions and targets. With params.distinguish, search (deterministically)
    until each named wrong cost gives a matching whose true cost is clearly above the optimum;
    under a box format other than corners, the GIoU of the unconverted boxes is named too."""
    Q, N, K = ctx.sizes["Q"], ctx.sizes["N"], ctx.sizes["K"]
    w = {"w_class": float(ctx.params.get("w_class", 1.0)), "w_l1": float(ctx.params.get("w_l1", 5.0)),
         "w_giou": float(ctx.params.get("w_giou", 2.0))}
    want = list(ctx.params.get("distinguish", []))
    if want and box_format != "xyxy":
        want.append("raw_giou")
    for _ in range(400):
        pred_logits = (torch.randn(Q, K + 1, generator=ctx.gen) * 2.0).to(ctx.dtype)
        gt_boxes = _boxes(ctx, N, ctx.dtype)
        gt_labels = torch.randint(0, K, (N,), generator=ctx.gen, dtype=torch.int64)
        pred_boxes = _boxes(ctx, Q, ctx.dtype)
        near = torch.randperm(Q, generator=ctx.gen)[: min(Q, 2 * N)]  # some queries sit near a target
        jitter = torch.randn(len(near), 4, generator=ctx.gen, dtype=torch.float64) * 0.06
        src = gt_boxes.double()[torch.arange(len(near)) % N] + jitter
        src = torch.cat([torch.minimum(src[:, :2], src[:, 2:] - 0.02), torch.maximum(src[:, 2:], src[:, :2] + 0.02)], 1)
        pred_boxes[near] = src.to(ctx.dtype)
        pred_boxes = box_convert(pred_boxes.double(), "xyxy", box_format).to(ctx.dtype)
        gt_boxes = box_convert(gt_boxes.double(), "xyxy", box_format).to(ctx.dtype)
        args = (pred_logits, pred_boxes, gt_labels, gt_boxes)
        true = _cost(*args, **w, box_format=box_format)
        q, g = _assign(true)
        best = float(true[q, g].sum())
        if all(_separates(args, w, true, best, name, box_format) for name in want):
            return {"pred_logits": pred_logits, "pred_boxes": pred_boxes, "gt_labels": gt_labels, "gt_boxes": gt_boxes, **w}
    raise ValueError(f"make_match_inputs: no input separates {want} (Q={Q}, N={N})")


def make_target_inputs(ctx):
    """A matching as hungarian_match returns it: query_idx sorted, gt_idx a permutation
    that is not the identity, labels such that permuting them changes something."""
    Q, N, K = ctx.sizes["Q"], ctx.sizes["N"], ctx.sizes["K"]
    for _ in range(400):
        query_idx = torch.randperm(Q, generator=ctx.gen)[:N].sort().values
        gt_idx = torch.randperm(N, generator=ctx.gen)
        gt_labels = torch.randint(0, K, (N,), generator=ctx.gen, dtype=torch.int64)
        if N == 1 or not torch.equal(gt_labels[gt_idx], gt_labels):
            if N == Q or not torch.equal(query_idx, torch.arange(N)):
                break
    return {"query_idx": query_idx, "gt_idx": gt_idx, "gt_labels": gt_labels, "Q": Q, "no_object": K}


# ------------------------------------------------------------------ checker

def _tol(call):
    return (0.02, 1e-2) if call.dtype == torch.float16 else (1e-3, 1e-4)


def check_matching(call, got, *, box_format="xyxy"):
    """Valid matching (sorted query_idx, gt_idx a permutation) with optimal total cost."""
    from grader.transport import SeqValue

    if isinstance(got, SeqValue):
        got = tuple(got.items)
    if not isinstance(got, tuple) or len(got) != 2:
        return f"expected a tuple (query_idx, gt_idx), got {type(got).__name__}"
    a = call.arg_dict()
    Q, N = a["pred_logits"].shape[0], a["gt_labels"].shape[0]
    for name, t in zip(("query_idx", "gt_idx"), got):
        if not isinstance(t, torch.Tensor):
            return f"{name}: expected an int64 tensor of shape ({N},), got {type(t).__name__}"
        if tuple(t.shape) != (N,):
            return f"{name}: expected shape (N,) = ({N},), got {tuple(t.shape)}"
        if t.dtype != torch.int64:
            return f"{name}: expected int64, got {str(t.dtype).replace('torch.', '')}"
    q, g = got
    if N and (int(q.min()) < 0 or int(q.max()) >= Q):
        return f"query_idx must index the Q = {Q} queries; got values from {int(q.min())} to {int(q.max())}"
    if N > 1 and not bool((q[1:] > q[:-1]).all()):
        return f"query_idx must be strictly increasing (sorted, no repeats); got {q.tolist()}"
    if sorted(g.tolist()) != list(range(N)):
        return f"gt_idx must use each of the N = {N} ground-truth indices exactly once; got {g.tolist()}"
    cost = _cost(a["pred_logits"], a["pred_boxes"], a["gt_labels"], a["gt_boxes"], a["w_class"], a["w_l1"], a["w_giou"],
                 box_format=box_format)
    eq, eg = call.expected
    best = float(cost[eq, eg].sum())
    total = float(cost[q, g].sum())
    atol, rtol = _tol(call)
    if total > best + atol + rtol * abs(best):
        return (f"a valid matching, but not the cheapest: total cost {total:.4f} against the optimum {best:.4f} "
                f"(check every term of the cost: -prob of the gt class, L1 box distance, -GIoU)")
    return None


# ------------------------------------------------------------------ traps

def trap_l2_distance(pred_logits, pred_boxes, gt_labels, gt_boxes, w_class=1.0, w_l1=5.0, w_giou=2.0, *,
                     box_format="xyxy"):
    return _assign(_cost(pred_logits, pred_boxes, gt_labels, gt_boxes, w_class, w_l1, w_giou, p=2.0, box_format=box_format))


def trap_cost_n_by_q(pred_logits, pred_boxes, gt_labels, gt_boxes, w_class=1.0, w_l1=5.0, w_giou=2.0, *,
                     box_format="xyxy"):
    cost = _cost(pred_logits, pred_boxes, gt_labels, gt_boxes, w_class, w_l1, w_giou, box_format=box_format).T  # (N, Q)
    rows, cols = _assign(cost)  # rows index ground truths, cols index queries
    return rows, cols  # read back as if rows were queries


def trap_unsorted_pairs(pred_logits, pred_boxes, gt_labels, gt_boxes, w_class=1.0, w_l1=5.0, w_giou=2.0, *,
                        box_format="xyxy"):
    cost = _cost(pred_logits, pred_boxes, gt_labels, gt_boxes, w_class, w_l1, w_giou, box_format=box_format).T  # (N, Q)
    rows, cols = _assign(cost)
    return cols, rows  # right pairs, but in ground-truth order: query_idx not sorted


def trap_logits_not_probs(pred_logits, pred_boxes, gt_labels, gt_boxes, w_class=1.0, w_l1=5.0, w_giou=2.0, *,
                          box_format="xyxy"):
    return _assign(_cost(pred_logits, pred_boxes, gt_labels, gt_boxes, w_class, w_l1, w_giou, probs=False, box_format=box_format))


def trap_giou_sign(pred_logits, pred_boxes, gt_labels, gt_boxes, w_class=1.0, w_l1=5.0, w_giou=2.0, *,
                   box_format="xyxy"):
    return _assign(_cost(pred_logits, pred_boxes, gt_labels, gt_boxes, w_class, w_l1, w_giou, giou_sign=1.0, box_format=box_format))


def trap_giou_unconverted(pred_logits, pred_boxes, gt_labels, gt_boxes, w_class=1.0, w_l1=5.0, w_giou=2.0):
    """The contract's answer on (cx, cy, w, h) boxes: generalized_box_iou reads them as corners."""
    return hungarian_match(pred_logits, pred_boxes, gt_labels, gt_boxes, w_class, w_l1, w_giou)


def trap_target_by_position(query_idx, gt_idx, gt_labels, Q, no_object):
    target = torch.full((Q,), no_object, dtype=torch.int64)
    target[: len(gt_idx)] = gt_labels[gt_idx]  # gt_idx[i] read as the target of query i
    return target


def trap_labels_unpermuted(query_idx, gt_idx, gt_labels, Q, no_object):
    target = torch.full((Q,), no_object, dtype=torch.int64)
    target[query_idx] = gt_labels  # ignores which ground truth each query was paired with
    return target


def trap_background_zero(query_idx, gt_idx, gt_labels, Q, no_object):
    target = torch.zeros(Q, dtype=torch.int64)  # "no object" is class K, not 0
    target[query_idx] = gt_labels[gt_idx]
    return target
