# trap: none
# Works in float32 for accuracy and forgets to cast back: fp16 in, fp32 out.
def pairwise_sq_dists(A, B):
    A32, B32 = A.float(), B.float()
    a2 = (A32 * A32).sum(1, keepdim=True)
    b2 = (B32 * B32).sum(1)
    return (a2 - 2 * A32 @ B32.T + b2).clamp_min(0)
