# trap: ceil-for-floor  (the step count rounded up with -(-a // b))
def conv_out(H, k, s, p, d=1):
    span = d * (k - 1) + 1
    return -(-(H + 2 * p - span) // s) + 1


def conv_transpose_out(H, k, s, p, output_padding=0):
    return (H - 1) * s - 2 * p + (k - 1) + output_padding + 1
