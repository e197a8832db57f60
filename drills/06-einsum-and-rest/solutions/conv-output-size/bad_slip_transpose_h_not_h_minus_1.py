# trap: none
# conv_transpose_out uses H * s where (H - 1) * s belongs: one stride too many.
def conv_out(H, k, s, p, d=1):
    return (H + 2 * p - d * (k - 1) - 1) // s + 1


def conv_transpose_out(H, k, s, p, output_padding=0):
    return H * s - 2 * p + k + output_padding
