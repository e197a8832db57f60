"""Reference, loop oracle, wh generator and traps for anchors over a feature grid."""
import torch


def make_anchors(H_f: int, W_f: int, stride: int, wh):
    dtype = wh.dtype if wh.is_floating_point() else torch.float32
    ys = (torch.arange(H_f, dtype=dtype, device=wh.device) + 0.5) * stride  # (H_f,) centre of each row of cells
    xs = (torch.arange(W_f, dtype=dtype, device=wh.device) + 0.5) * stride  # (W_f,)
    cy, cx = torch.meshgrid(ys, xs, indexing="ij")  # (H_f, W_f) each
    centres = torch.stack([cx, cy], dim=-1)[:, :, None, :]  # (H_f, W_f, 1, 2)
    half = wh.to(dtype)[None, None] / 2  # (1, 1, A, 2)
    boxes = torch.cat([centres - half, centres + half], dim=-1)  # (H_f, W_f, A, 4)
    return boxes.reshape(-1, 4)  # cell-major, anchor-minor


def anchors_loop(H_f: int, W_f: int, stride: int, wh):
    """The oracle: one box at a time, in the promised order."""
    rows = []
    for i in range(H_f):
        for j in range(W_f):
            cx, cy = (j + 0.5) * stride, (i + 0.5) * stride
            for a in range(wh.shape[0]):
                w, h = float(wh[a, 0]), float(wh[a, 1])
                rows.append([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2])
    return torch.tensor(rows, dtype=torch.float64)


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


def _boxes(cx, cy, wh, dtype):
    """cx, cy: (..., 1) centres; wh: (A, 2) -> (..., A, 4)."""
    w, h = wh[:, 0].to(dtype), wh[:, 1].to(dtype)
    return torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], dim=-1)


def trap_meshgrid_xy(H_f: int, W_f: int, stride: int, wh):
    dtype = _dtype(wh)
    ys = (torch.arange(H_f, dtype=dtype, device=wh.device) + 0.5) * stride
    xs = (torch.arange(W_f, dtype=dtype, device=wh.device) + 0.5) * stride
    cy, cx = torch.meshgrid(ys, xs, indexing="xy")  # (W_f, H_f): the grid comes out transposed
    return _boxes(cx[..., None], cy[..., None], wh, dtype).reshape(-1, 4)


def trap_anchor_major(H_f: int, W_f: int, stride: int, wh):
    dtype = _dtype(wh)
    ys = (torch.arange(H_f, dtype=dtype, device=wh.device) + 0.5) * stride
    xs = (torch.arange(W_f, dtype=dtype, device=wh.device) + 0.5) * stride
    cy, cx = torch.meshgrid(ys, xs, indexing="ij")
    boxes = _boxes(cx[..., None], cy[..., None], wh, dtype)  # (H_f, W_f, A, 4)
    return boxes.permute(2, 0, 1, 3).reshape(-1, 4)  # all cells for anchor 0, then anchor 1, ...


def trap_cell_corner(H_f: int, W_f: int, stride: int, wh):
    dtype = _dtype(wh)
    ys = torch.arange(H_f, dtype=dtype, device=wh.device) * stride  # top-left corner, not the centre
    xs = torch.arange(W_f, dtype=dtype, device=wh.device) * stride
    cy, cx = torch.meshgrid(ys, xs, indexing="ij")
    return _boxes(cx[..., None], cy[..., None], wh, dtype).reshape(-1, 4)


def trap_full_size_offset(H_f: int, W_f: int, stride: int, wh):
    dtype = _dtype(wh)
    ys = (torch.arange(H_f, dtype=dtype, device=wh.device) + 0.5) * stride
    xs = (torch.arange(W_f, dtype=dtype, device=wh.device) + 0.5) * stride
    cy, cx = torch.meshgrid(ys, xs, indexing="ij")
    c = torch.stack([cx, cy], dim=-1)[:, :, None, :]
    size = wh.to(dtype)[None, None]  # w and h where w / 2 and h / 2 belong
    return torch.cat([c - size, c + size], dim=-1).reshape(-1, 4)


def trap_centre_x_from_row(H_f: int, W_f: int, stride: int, wh):
    dtype = _dtype(wh)
    ys = (torch.arange(H_f, dtype=dtype, device=wh.device) + 0.5) * stride
    xs = (torch.arange(W_f, dtype=dtype, device=wh.device) + 0.5) * stride
    cy, cx = torch.meshgrid(ys, xs, indexing="ij")
    return _boxes(cy[..., None], cx[..., None], wh, dtype).reshape(-1, 4)  # x and y of the centre swapped
