# device: mixes CPU tensors with the inputs (correct on a CPU, an error on a GPU)
import torch
def one_hot(labels, K):
    out = torch.zeros((labels.shape[0], K), dtype=torch.float32)
    out[torch.arange(labels.shape[0]), labels] = 1
    return out
def class_counts(labels, K):
    vals, cnt = torch.unique(labels, return_counts=True)
    out = torch.zeros(K, dtype=torch.int64)
    out[vals] = cnt
    return out
