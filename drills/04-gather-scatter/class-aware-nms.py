"""Reference and traps for class-aware-nms.

The oracle is per_class_nms in class-aware-nms.oracle.py (greedy NMS inside
each class, float64). torchvision's batched_nms is not used as the oracle: on
the CPU path (under 4000 coordinates) it offsets by classes * (boxes.max() + 1),
and on the negative-coordinate case that lets a class-1 box suppress a class-0
box (checked with torchvision 0.29.1).

Every function takes the variant keyword `box_format` (drills/README.md, "Variants"): xyxy
(corners, the contract) or cxcywh (centre and size, YOLOv5's raw predictions), converted to
corners before anything else, as torchvision's nms wants them.
"""
import torch
from torchvision.ops import nms


def _corners(boxes, box_format):
    """(N, 4) boxes in `box_format` as (x1, y1, x2, y2)."""
    if box_format == "xyxy":
        return boxes
    cx, cy, w, h = boxes.unbind(-1)
    return torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], dim=-1)


def _from_corners(boxes, box_format):
    """(N, 4) float64 corners written in `box_format`."""
    if box_format == "xyxy":
        return boxes
    x1, y1, x2, y2 = boxes.unbind(-1)
    return torch.stack([(x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1], dim=-1)


def class_aware_nms(boxes, scores, classes, iou_threshold: float, *, box_format="xyxy"):
    work = boxes.float() if boxes.dtype == torch.float16 else boxes  # no CPU fp16 nms kernel
    work = _corners(work, box_format)  # (N, 4) as (x1, y1, x2, y2), what nms reads
    span = work.max() - work.min() + 1  # wider than any box, whatever the sign of the coordinates
    shifted = work + classes.to(work.dtype)[:, None] * span  # (N, 4): each class in its own region
    return nms(shifted, scores.to(work.dtype), iou_threshold)  # (n_keep,) int64, by decreasing score


# ------------------------------------------------------------------ inputs


def _iou(a, b):
    w = (torch.minimum(a[2], b[:, 2]) - torch.maximum(a[0], b[:, 0])).clamp(min=0)
    h = (torch.minimum(a[3], b[:, 3]) - torch.maximum(a[1], b[:, 1])).clamp(min=0)
    inter = w * h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1]) - inter
    return inter / union


def _fits(box, boxes, thr, margin=0.025):
    """No IoU of box with any existing box (any class) within margin of the threshold."""
    if not boxes:
        return True
    ious = _iou(box, torch.stack(boxes))
    return bool(((ious - thr).abs() >= margin).all())


def make_inputs(ctx, *, box_format="xyxy"):
    """Clusters of overlapping boxes with mixed classes, distinct scores, no IoU near the threshold.

    style plain: coordinates in [0, 100]; negative: mostly negative coordinates, plus a planted
    pair that torchvision's batched_nms offset (classes * (max + 1)) makes collide; cross-class:
    a planted pair of heavily overlapping boxes of different classes with the top scores.
    Boxes are checked after rounding to the case dtype in the variant's box format, as the
    oracle sees them (a (cx, cy, w, h) box rounded to fp16 is exact as float64 corners).
    """
    N, K = ctx.sizes["N"], ctx.sizes["K"]
    thr = float(ctx.params.get("iou_threshold", 0.5))
    style = str(ctx.params.get("style", "plain"))
    dt = ctx.dtype
    lo, hi = (-80.0, 12.0) if style == "negative" else (0.0, 100.0)

    def rounded(b):
        b = torch.tensor(b, dtype=torch.float64)
        return _corners(_from_corners(b, box_format).to(dt).double(), box_format)

    boxes, classes = [], []
    planted = []  # indices that get the top scores
    if style in ("negative", "cross-class") and K >= 2:
        n_plant = 2
    else:
        n_plant = 0
    n_free = N - n_plant
    centers = []
    while len(boxes) < n_free:
        if not centers or ctx.rng.random() < 0.3:
            centers.append((ctx.rng.uniform(lo + 10, hi - 10), ctx.rng.uniform(lo + 10, hi - 10), ctx.rng.uniform(5, 16)))
        cx, cy, s = ctx.rng.choice(centers)
        for _ in range(200):
            w, h = s * ctx.rng.uniform(0.7, 1.3), s * ctx.rng.uniform(0.7, 1.3)
            x = cx + ctx.rng.uniform(-0.35, 0.35) * s
            y = cy + ctx.rng.uniform(-0.35, 0.35) * s
            box = rounded([x - w / 2, y - h / 2, x + w / 2, y + h / 2])
            if _fits(box, boxes, thr):
                boxes.append(box)
                classes.append(ctx.rng.randrange(K))
                break
    if n_plant:
        M = float(torch.stack(boxes).max()) if boxes else hi
        for _ in range(2000):
            c = ctx.rng.randrange(K - 1)
            s = ctx.rng.uniform(5, 12)
            if style == "negative":
                # A (class c + 1) in negative space, B (class c) = A + (max + 1): the batched_nms
                # offset puts A exactly on top of B although they never overlap for real
                x1, y1 = ctx.rng.uniform(lo + 2, -M - 2 - s), ctx.rng.uniform(lo + 2, -M - 2 - s)
                a = rounded([x1, y1, x1 + s, y1 + s])
                b = rounded([x1 + M + 1, y1 + M + 1, x1 + s + M + 1, y1 + s + M + 1])
                pair = [(a, c + 1), (b, c)]
            else:
                x1, y1 = ctx.rng.uniform(lo + 5, hi - 25), ctx.rng.uniform(lo + 5, hi - 25)
                d = ctx.rng.uniform(0.5, 1.5)
                a = rounded([x1, y1, x1 + s, y1 + s])
                b = rounded([x1 + d, y1 + d, x1 + s + d, y1 + s + d])  # IoU well above 0.5
                pair = [(a, c + 1), (b, c)]
            a, b = pair[0][0], pair[1][0]
            if float(b.max()) > M or not (_fits(a, boxes, thr) and _fits(b, boxes + [a], thr)):
                continue
            for box, cls in pair:
                planted.append(len(boxes))
                boxes.append(box)
                classes.append(cls)
            break
        else:
            raise RuntimeError("could not plant the pair")
    n = len(boxes)
    order = torch.randperm(n, generator=ctx.gen)
    boxes_t = torch.stack(boxes)[order]
    classes_t = torch.tensor(classes, dtype=torch.int64)[order]
    ranks = torch.randperm(n, generator=ctx.gen).double()
    inv = torch.empty(n, dtype=torch.int64)
    inv[order] = torch.arange(n)
    for j, i in enumerate(planted):  # the planted pair holds the two top scores
        ranks[inv[i]] = n + 1 + j
    scores = (ranks + 1) / (n + 3)
    boxes_t = _from_corners(boxes_t, box_format)
    return {"boxes": boxes_t.to(dt), "scores": scores.to(dt), "classes": classes_t, "iou_threshold": thr}


# ------------------------------------------------------------------ traps


def trap_plain_nms(boxes, scores, classes, iou_threshold: float, *, box_format="xyxy"):
    return nms(_corners(boxes.float(), box_format), scores.float(), iou_threshold)


def trap_offset_max_plus_one(boxes, scores, classes, iou_threshold: float, *, box_format="xyxy"):
    work = _corners(boxes.float(), box_format)
    offsets = classes.to(work.dtype) * (work.max() + 1)  # batched_nms's offset: assumes coordinates >= 0
    return nms(work + offsets[:, None], scores.float(), iou_threshold)


def trap_no_upcast(boxes, scores, classes, iou_threshold: float, *, box_format="xyxy"):
    boxes = _corners(boxes, box_format)
    span = boxes.max() - boxes.min() + 1
    return nms(boxes + classes.to(boxes.dtype)[:, None] * span, scores, iou_threshold)  # fp16: RuntimeError


def trap_sorted_by_index(boxes, scores, classes, iou_threshold: float, *, box_format="xyxy"):
    work = _corners(boxes.float(), box_format)
    span = work.max() - work.min() + 1
    keep = nms(work + classes.to(work.dtype)[:, None] * span, scores.float(), iou_threshold)
    return keep.sort().values


def trap_boxes_as_corners(boxes, scores, classes, iou_threshold: float):
    """The contract's answer on (cx, cy, w, h) boxes: nms reads them as (x1, y1, x2, y2)."""
    return class_aware_nms(boxes, scores, classes, iou_threshold)
