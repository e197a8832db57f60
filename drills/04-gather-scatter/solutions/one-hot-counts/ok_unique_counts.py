import torch
def one_hot(labels, K):
    out = torch.zeros((labels.shape[0], K), dtype=torch.float32, device=labels.device)
    out[torch.arange(labels.shape[0], device=labels.device), labels] = 1
    return out
def class_counts(labels, K):
    vals, cnt = torch.unique(labels, return_counts=True)
    out = labels.new_zeros(K)
    out[vals] = cnt
    return out
