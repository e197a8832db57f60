"""Reference, loop oracle, wh generator and traps for anchors over a feature grid.

Every function takes the variant keywords (drills/README.md, "Variants"): `offset` says where in
its cell an anchor is centred (centre: (j + 0.5) * stride, the contract; corner: j * stride, as
torchvision's AnchorGenerator) and `order` how the anchors are listed (cell-major: the A anchors
of a cell adjacent, the contract; anchor-major: every cell for anchor 0 first, as YOLOv5)."""
import torch

SHIFT = {"centre": 0.5, "corner": 0.0}  # where in its cell (in cells) an anchor is centred


def make_anchors(H_f: int, W_f: int, stride: int, wh, *, offset="centre", order="cell-major"):
    dtype = wh.dtype if wh.is_floating_point() else torch.float32
    ys = (torch.arange(H_f, dtype=dtype, device=wh.device) + SHIFT[offset]) * stride  # (H_f,) centre of each row of cells
    xs = (torch.arange(W_f, dtype=dtype, device=wh.device) + SHIFT[offset]) * stride  # (W_f,)
    cy, cx = torch.meshgrid(ys, xs, indexing="ij")  # (H_f, W_f) each
    centres = torch.stack([cx, cy], dim=-1)[:, :, None, :]  # (H_f, W_f, 1, 2)
    half = wh.to(dtype)[None, None] / 2  # (1, 1, A, 2)
    boxes = torch.cat([centres - half, centres + half], dim=-1)  # (H_f, W_f, A, 4)
    return _listed(boxes, order)


def _listed(boxes, order):
    """(H_f, W_f, A, 4) -> (H_f * W_f * A, 4) in the variant's order."""
    if order == "anchor-major":
        boxes = boxes.permute(2, 0, 1, 3)  # (A, H_f, W_f, 4)
    return boxes.reshape(-1, 4)


def anchors_loop(H_f: int, W_f: int, stride: int, wh, *, offset="centre", order="cell-major"):
    """The oracle: one box at a time, in the promised order."""
    rows = {}
    s = SHIFT[offset]
    for i in range(H_f):
        for j in range(W_f):
            cx, cy = (j + s) * stride, (i + s) * stride
            for a in range(wh.shape[0]):
                w, h = float(wh[a, 0]), float(wh[a, 1])
                rows[(a, i, j) if order == "anchor-major" else (i, j, a)] = [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2]
    return torch.tensor([rows[k] for k in sorted(rows)], dtype=torch.float64)


def make_wh(ctx, shape, dtype, kind="float"):
    """Anchor widths and heights. float: any values; half: multiples of 0.5 (exact in fp16);
    int: an int64 tensor (the output is then float32)."""
    kind = ctx.params.get("wh_kind", kind)
    A = shape[0]
    if kind == "int":
        return torch.randint(8, 97, (A, 2), generator=ctx.gen, dtype=torch.int64)
    x = torch.rand((A, 2), generator=ctx.gen, dtype=torch.float64) * 88 + 8
    if kind == "half":
        x = (x * 2).round() / 2
    return x.to(dtype)


def _dtype(wh):
    return wh.dtype if wh.is_floating_point() else torch.float32


def _axes(H_f, W_f, stride, wh, offset):
    dtype = _dtype(wh)
    ys = (torch.arange(H_f, dtype=dtype, device=wh.device) + SHIFT[offset]) * stride
    xs = (torch.arange(W_f, dtype=dtype, device=wh.device) + SHIFT[offset]) * stride
    return ys, xs, dtype


def _boxes(cx, cy, wh, dtype):
    """cx, cy: (..., 1) centres; wh: (A, 2) -> (..., A, 4)."""
    w, h = wh[:, 0].to(dtype), wh[:, 1].to(dtype)
    return torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], dim=-1)


def trap_meshgrid_xy(H_f: int, W_f: int, stride: int, wh, *, offset="centre", order="cell-major"):
    ys, xs, dtype = _axes(H_f, W_f, stride, wh, offset)
    cy, cx = torch.meshgrid(ys, xs, indexing="xy")  # (W_f, H_f): the grid comes out transposed
    return _listed(_boxes(cx[..., None], cy[..., None], wh, dtype), order)


def trap_anchor_major(H_f: int, W_f: int, stride: int, wh, *, offset="centre"):
    """Anchor-major order where the cells' anchors should be adjacent."""
    return make_anchors(H_f, W_f, stride, wh, offset=offset, order="anchor-major")


def trap_cell_major(H_f: int, W_f: int, stride: int, wh, *, offset="centre"):
    """The contract's cell-major order where the variant lists anchor by anchor."""
    return make_anchors(H_f, W_f, stride, wh, offset=offset, order="cell-major")


def trap_cell_corner(H_f: int, W_f: int, stride: int, wh, *, order="cell-major"):
    """Anchors centred on the cell's top-left corner (j * stride) where they belong in its centre."""
    return make_anchors(H_f, W_f, stride, wh, offset="corner", order=order)


def trap_cell_centre(H_f: int, W_f: int, stride: int, wh, *, order="cell-major"):
    """The contract's (j + 0.5) * stride where the variant centres anchors at j * stride."""
    return make_anchors(H_f, W_f, stride, wh, offset="centre", order=order)


def trap_full_size_offset(H_f: int, W_f: int, stride: int, wh, *, offset="centre", order="cell-major"):
    ys, xs, dtype = _axes(H_f, W_f, stride, wh, offset)
    cy, cx = torch.meshgrid(ys, xs, indexing="ij")
    c = torch.stack([cx, cy], dim=-1)[:, :, None, :]
    size = wh.to(dtype)[None, None]  # w and h where w / 2 and h / 2 belong
    return _listed(torch.cat([c - size, c + size], dim=-1), order)


def trap_centre_x_from_row(H_f: int, W_f: int, stride: int, wh, *, offset="centre", order="cell-major"):
    ys, xs, dtype = _axes(H_f, W_f, stride, wh, offset)
    cy, cx = torch.meshgrid(ys, xs, indexing="ij")
    return _listed(_boxes(cy[..., None], cx[..., None], wh, dtype), order)  # x and y of the centre swapped
