# trap: outer-broadcast  ((N,) minus (N, 1) broadcasts to (N, N); computed and returned in float32)
def mse(pred, target):
    diff = pred.float() - target.float()
    return diff.pow(2).mean()
