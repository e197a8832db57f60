# trap: transpose-no-output-padding  (the transposed size without output_padding, computed through floats)
def conv_out(H, k, s, p, d=1):
    return int((H + 2 * p - d * (k - 1) - 1) / s) + 1 if H + 2 * p >= d * (k - 1) + 1 else 0


def conv_transpose_out(H, k, s, p, output_padding=0):
    return int((H - 1) * s - 2.0 * p + k)
