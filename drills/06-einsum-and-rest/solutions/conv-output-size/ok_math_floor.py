import math


def conv_out(H, k, s, p, d=1):
    span = d * (k - 1) + 1  # rows one dilated kernel covers
    return math.floor((H + 2 * p - span) / s) + 1


def conv_transpose_out(H, k, s, p, output_padding=0):
    return (H - 1) * s - 2 * p + k + output_padding
