# trap: none
# Missing parentheses: `- 1 // s` is `- (1 // s)`, which is 0 whenever s > 1.
def conv_out(H, k, s, p, d=1):
    return H + 2 * p - d * (k - 1) - 1 // s + 1


def conv_transpose_out(H, k, s, p, output_padding=0):
    return (H - 1) * s - 2 * p + k + output_padding
