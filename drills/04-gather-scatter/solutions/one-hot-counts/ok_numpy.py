import numpy as np
import torch


def one_hot(labels, K):
    out = np.zeros((len(labels), K), dtype=np.float32)
    out[np.arange(len(labels)), labels.numpy()] = 1
    return torch.from_numpy(out)


def class_counts(labels, K):
    counts = np.zeros(K, dtype=np.int64)
    np.add.at(counts, labels.numpy(), 1)
    return torch.from_numpy(counts)
