"""Reference and traps for conv-output-size."""
import math


def conv_out(H: int, k: int, s: int, p: int, d: int = 1) -> int:
    return (H + 2 * p - d * (k - 1) - 1) // s + 1  # floor: a window that does not fit is dropped


def conv_transpose_out(H: int, k: int, s: int, p: int, output_padding: int = 0) -> int:
    return (H - 1) * s - 2 * p + (k - 1) + output_padding + 1


# ------------------------------------------------------------------- traps


def trap_ceil(H: int, k: int, s: int, p: int, d: int = 1) -> int:
    """Rounds the number of steps up instead of down."""
    return math.ceil((H + 2 * p - d * (k - 1) - 1) / s) + 1


def trap_no_plus_one(H: int, k: int, s: int, p: int, d: int = 1) -> int:
    """Counts the strides but not the first window."""
    return (H + 2 * p - d * (k - 1) - 1) // s


def trap_ignores_dilation(H: int, k: int, s: int, p: int, d: int = 1) -> int:
    """Uses the kernel size k where a dilated kernel spans d * (k - 1) + 1 rows."""
    return (H + 2 * p - k) // s + 1


def trap_h_over_s(H: int, k: int, s: int, p: int, d: int = 1) -> int:
    """Assumes every stride-s layer simply gives ceil(H / s), whatever the kernel and padding."""
    return -(-H // s)


def trap_forward_for_transpose(H: int, k: int, s: int, p: int, output_padding: int = 0) -> int:
    """Applies the ordinary convolution formula to the transposed one."""
    return (H + 2 * p - k) // s + 1


def trap_transpose_plus_padding(H: int, k: int, s: int, p: int, output_padding: int = 0) -> int:
    """Adds the padding instead of removing it: a transposed conv's padding crops the output."""
    return (H - 1) * s + 2 * p + k + output_padding


def trap_transpose_no_output_padding(H: int, k: int, s: int, p: int, output_padding: int = 0) -> int:
    """Forgets output_padding, the extra rows that pick one of the s sizes that map to the same input."""
    return (H - 1) * s - 2 * p + k


def trap_transpose_h_times_s(H: int, k: int, s: int, p: int, output_padding: int = 0) -> int:
    """Assumes a transposed conv always multiplies the size by its stride."""
    return H * s
