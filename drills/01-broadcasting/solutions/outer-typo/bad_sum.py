# trap: sum-not-mean
def mse(pred, target):
    return ((pred - target[:, 0]) ** 2).sum()
