"""Reference, input builder and traps for pairwise IoU of boxes.

Every function takes the variant keyword `box_format` (drills/README.md, "Variants"): xyxy
(corners, the contract), cxcywh (centre and size, DETR's pred_boxes) or xywh (top-left corner
and size, COCO's bbox)."""
import torch


def _corners(boxes, box_format="xyxy"):
    """(n, 4) boxes in `box_format` as (x1, y1, x2, y2), in their own dtype."""
    if box_format == "xyxy":
        return boxes
    p, q, w, h = boxes.unbind(-1)
    if box_format == "cxcywh":
        p, q = p - w / 2, q - h / 2  # centre -> top-left
    return torch.stack([p, q, p + w, q + h], dim=-1)


def _from_corners(boxes, box_format):
    """(n, 4) float64 corners written in `box_format` (the builder's side of _corners())."""
    x1, y1, x2, y2 = boxes.unbind(-1)
    if box_format == "cxcywh":
        return torch.stack([(x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1], dim=-1)
    if box_format == "xywh":
        return torch.stack([x1, y1, x2 - x1, y2 - y1], dim=-1)
    return boxes


def box_iou(a, b, *, box_format="xyxy"):
    a, b = _corners(a, box_format), _corners(b, box_format)  # (N, 4), (M, 4) as corners
    area_a = (a[:, 2] - a[:, 0]).clamp(min=0) * (a[:, 3] - a[:, 1]).clamp(min=0)  # (N,)
    area_b = (b[:, 2] - b[:, 0]).clamp(min=0) * (b[:, 3] - b[:, 1]).clamp(min=0)  # (M,)
    lt = torch.maximum(a[:, None, :2], b[None, :, :2])  # (N, M, 2) top-left of the overlap
    rb = torch.minimum(a[:, None, 2:], b[None, :, 2:])  # (N, M, 2) bottom-right
    wh = (rb - lt).clamp(min=0)  # (N, M, 2): no overlap -> 0, per axis
    inter = wh[..., 0] * wh[..., 1]  # (N, M)
    union = area_a[:, None] + area_b[None, :] - inter  # (N, M)
    safe = torch.where(union > 0, union, torch.ones_like(union))
    return torch.where(union > 0, inter / safe, torch.zeros_like(inter))


# ------------------------------------------------------------------ inputs

def _rand(ctx, n, low, high):
    return torch.rand(n, generator=ctx.gen, dtype=torch.float64) * (high - low) + low


def _boxes(ctx, n, lo=0.0, hi=80.0, wmin=2.0, wmax=40.0):
    x1, y1 = _rand(ctx, n, lo, hi), _rand(ctx, n, lo, hi)
    w, h = _rand(ctx, n, wmin, wmax), _rand(ctx, n, wmin, wmax)
    return torch.stack([x1, y1, x1 + w, y1 + h], dim=1)


def _band(ctx, n, axis):
    """Boxes spread along one axis inside a shared band of the other: every pair overlaps
    across the band, so pairs can only be apart along `axis`."""
    along = _rand(ctx, n, 0.0, 90.0)
    length = _rand(ctx, n, 4.0, 30.0)
    across = _rand(ctx, n, 40.0, 50.0)
    thick = _rand(ctx, n, 20.0, 30.0)
    if axis == "x":
        return torch.stack([along, across, along + length, across + thick], dim=1)
    return torch.stack([across, along, across + thick, along + length], dim=1)


def _cluster(ctx, n, lo_x, lo_y):
    """Large boxes with corners in an 8 x 8 square: apart from the a cluster by small gaps only."""
    x1, y1 = _rand(ctx, n, lo_x, lo_x + 8.0), _rand(ctx, n, lo_y, lo_y + 8.0)
    w, h = _rand(ctx, n, 30.0, 38.0), _rand(ctx, n, 30.0, 38.0)
    return torch.stack([x1, y1, x1 + w, y1 + h], dim=1)


def _degenerate(ctx, n):
    """Zero-area boxes: points, vertical and horizontal segments."""
    boxes = _boxes(ctx, n)
    for i in range(n):
        if i % 3 == 0:
            boxes[i, 2] = boxes[i, 0]
            boxes[i, 3] = boxes[i, 1]
        elif i % 3 == 1:
            boxes[i, 2] = boxes[i, 0]
        else:
            boxes[i, 3] = boxes[i, 1]
    return boxes


def make_boxes(ctx, *, box_format="xyxy"):
    N, M = ctx.sizes["N"], ctx.sizes["M"]
    kind = ctx.params.get("kind", "random")
    if kind == "random":
        a, b = _boxes(ctx, N), _boxes(ctx, M)
    elif kind == "self":
        a = _boxes(ctx, N)
        b = a.clone()
    elif kind == "one-axis":
        axis = ctx.params.get("axis", "x")
        a, b = _band(ctx, N, axis), _band(ctx, M, axis)
    elif kind == "diagonal":
        # a near the origin; b diagonally past it, beside it (apart along x only) or overlapping it.
        # Gaps stay small against the areas, so even a wrong "overlap" never exceeds the two areas.
        a = _cluster(ctx, N, 0.0, 0.0)
        where = [(48.0, 48.0), (48.0, 0.0), (12.0, 12.0), (48.0, 48.0), (0.0, 48.0)]
        b = torch.cat([_cluster(ctx, 1, *where[j % len(where)]) for j in range(M)])
    elif kind == "zero-area":
        a = torch.cat([_degenerate(ctx, 3), _boxes(ctx, N - 3)])
        b = torch.cat([a[:3].clone(), _boxes(ctx, M - 3)])  # a[i] vs b[i], i < 3: zero union
        b[1, 1] += 1.5  # a segment against an overlapping collinear segment: still zero union
        b[1, 3] += 0.5
        b[M - 1] = torch.tensor([a[0, 0] - 4.0, a[0, 1] - 4.0, a[0, 0] + 4.0, a[0, 1] + 4.0])  # a point inside a box
    else:
        raise ValueError(kind)
    a, b = a.clamp(0, 128), b.clamp(0, 128)
    # quarter-pixel coordinates: exact in fp16 within [0, 128]
    a, b = (a * 4).round() / 4, (b * 4).round() / 4
    # centres fall on eighth-pixels and sizes on quarter-pixels: still exact in fp16
    a, b = _from_corners(a, box_format), _from_corners(b, box_format)
    return {"a": a.to(ctx.dtype), "b": b.to(ctx.dtype)}


# ------------------------------------------------------------------- traps

def _parts(a, b, box_format):
    a, b = _corners(a, box_format), _corners(b, box_format)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.maximum(a[:, None, :2], b[None, :, :2])
    rb = torch.minimum(a[:, None, 2:], b[None, :, 2:])
    return area_a, area_b, rb - lt


def _guarded(inter, union):
    safe = torch.where(union != 0, union, torch.ones_like(union))
    return torch.where(union != 0, inter / safe, torch.zeros_like(inter))


def trap_no_clip(a, b, *, box_format="xyxy"):
    area_a, area_b, wh = _parts(a, b, box_format)
    inter = wh[..., 0] * wh[..., 1]  # two negative sides multiply to a positive "overlap"
    return _guarded(inter, area_a[:, None] + area_b[None, :] - inter)


def trap_clip_product(a, b, *, box_format="xyxy"):
    area_a, area_b, wh = _parts(a, b, box_format)
    inter = (wh[..., 0] * wh[..., 1]).clamp(min=0)  # clipped after multiplying
    return _guarded(inter, area_a[:, None] + area_b[None, :] - inter)


def trap_no_zero_union_guard(a, b, *, box_format="xyxy"):
    area_a, area_b, wh = _parts(a, b, box_format)
    wh = wh.clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter / (area_a[:, None] + area_b[None, :] - inter)  # 0 / 0 = NaN


def trap_union_without_overlap(a, b, *, box_format="xyxy"):
    area_a, area_b, wh = _parts(a, b, box_format)
    wh = wh.clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return _guarded(inter, area_a[:, None] + area_b[None, :])  # forgot to subtract inter


def trap_read_as_corners(a, b):
    """The contract's answer where the boxes are in another format: columns read as (x1, y1, x2, y2)."""
    return box_iou(a, b)
