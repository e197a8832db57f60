"""Reference, input builder and traps for broadcast-rule."""


def broadcast_shape(a: tuple, b: tuple) -> tuple:
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)  # right-align: missing leading axes are 1
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise ValueError(f"shapes {a} and {b} do not broadcast: {x} against {y}")
    return tuple(out)


# ----------------------------------------------------------------- inputs


def shape_pair(ctx) -> dict:
    """Both shapes of a case: fixed ones from params.a / params.b, or a random pair.

    Random pairs (params.random: compatible | incompatible, rank_a, rank_b) draw
    sizes 2..7 and put 1s on both sides, so every rule of the drill is exercised.
    """
    p = ctx.params
    if "a" in p and "b" in p:
        return {"a": tuple(int(v) for v in p["a"]), "b": tuple(int(v) for v in p["b"])}
    ra, rb = int(p["rank_a"]), int(p["rank_b"])
    rng = ctx.rng
    n = max(ra, rb)
    a: list[int] = []
    b: list[int] = []
    both = [j for j in range(n) if j < ra and j < rb]  # positions counted from the right
    kinds = {j: rng.choice(("same", "a1", "b1")) for j in both}
    if len(both) >= 2:
        j1, j2 = rng.sample(both, 2)
        kinds[j1], kinds[j2] = "a1", "b1"
    bad = rng.choice(both) if p.get("random") == "incompatible" and both else None
    for j in range(n):
        size = rng.randint(2, 7)
        if j == bad:
            other = rng.choice([v for v in range(2, 8) if v != size])
            a.append(size)
            b.append(other)
            continue
        kind = kinds.get(j)
        if j < ra:
            a.append(1 if kind == "a1" else size)
        if j < rb:
            b.append(1 if kind == "b1" else size)
    return {"a": tuple(reversed(a)), "b": tuple(reversed(b))}


# ------------------------------------------------------------------- traps


def _pad_right(a, b):
    n = max(len(a), len(b))
    return tuple(a) + (1,) * (n - len(a)), tuple(b) + (1,) * (n - len(b))


def trap_align_left(a: tuple, b: tuple) -> tuple:
    """Pads the shorter shape on the right, so axes line up from the left."""
    a, b = _pad_right(a, b)
    out = []
    for x, y in zip(a, b):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise ValueError(f"{x} against {y}")
    return tuple(out)


def trap_one_side_stretch(a: tuple, b: tuple) -> tuple:
    """Only a 1 in b stretches; a 1 in a facing a larger size is called an error."""
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x == y or y == 1:
            out.append(x)
        else:
            raise ValueError(f"{x} against {y}")
    return tuple(out)


def trap_one_side_stretch_a(a: tuple, b: tuple) -> tuple:
    """Only a 1 in a stretches; a 1 in b facing a larger size is called an error."""
    return trap_one_side_stretch(b, a)


def trap_max_with_zero(a: tuple, b: tuple) -> tuple:
    """Checks compatibility, then takes max(x, y): a 0 against a 1 comes out 1."""
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            raise ValueError(f"{x} against {y}")
        out.append(max(x, y))
    return tuple(out)


def trap_no_raise(a: tuple, b: tuple) -> tuple:
    """Never checks compatibility: returns max(x, y) on every axis."""
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    return tuple(max(x, y) for x, y in zip(a, b))


def trap_no_raise_right_sizes(a: tuple, b: tuple) -> tuple:
    """The size-1 rule done right (a 0 against a 1 gives 0), but never raises."""
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    return tuple(y if x == 1 else x for x, y in zip(a, b))


def trap_assert(a: tuple, b: tuple) -> tuple:
    """Right rule, but an incompatible pair trips an assert instead of raising ValueError."""
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        assert x == y or x == 1 or y == 1, f"{x} against {y}"
        out.append(x if y == 1 else y)
    return tuple(out)


def match_no_raise(call, got, trap_out) -> bool:
    """Any value returned (max, the larger side, either side) where the shapes do not broadcast."""
    from grader.cases.prepare import ExpectedRaise

    return isinstance(call.expected, ExpectedRaise)


def trap_runtime_error(a: tuple, b: tuple) -> tuple:
    """Lets real tensors decide and lets their RuntimeError escape instead of raising ValueError."""
    import torch

    return tuple((torch.empty(a) + torch.empty(b)).shape)
