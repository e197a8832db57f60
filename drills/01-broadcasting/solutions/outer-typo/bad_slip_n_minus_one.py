# trap: none
# Squeezes the target correctly but divides by N - 1 (a sample-variance habit).
def mse(pred, target):
    diff = pred - target.squeeze(1)
    return (diff ** 2).sum() / (diff.shape[0] - 1)
