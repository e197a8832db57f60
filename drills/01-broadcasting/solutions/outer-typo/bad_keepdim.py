# trap: mean-keeps-axis
def mse(pred, target):
    return ((pred.unsqueeze(1) - target) ** 2).mean(dim=0)
