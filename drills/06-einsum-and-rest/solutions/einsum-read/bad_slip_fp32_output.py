# trap: none
# Multiplies in float32 for accuracy and returns float32 for fp16 inputs (the contract keeps q's dtype).
def scores_without_einsum(q, k):
    return q.float().permute(0, 2, 1, 3) @ k.float().permute(0, 2, 3, 1)
