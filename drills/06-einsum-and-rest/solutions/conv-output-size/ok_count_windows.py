def conv_out(H: int, k: int, s: int, p: int, d: int = 1) -> int:
    # count the window starts that fit in the padded input
    padded = H + 2 * p
    span = d * (k - 1) + 1
    n = 0
    start = 0
    while start + span <= padded:
        n += 1
        start += s
    return n


def conv_transpose_out(H: int, k: int, s: int, p: int, output_padding: int = 0) -> int:
    # the forward conv that this one inverts maps the result back to H
    full = (H - 1) * s + k  # every input row scatters a k-row window, s apart
    return full - 2 * p + output_padding
