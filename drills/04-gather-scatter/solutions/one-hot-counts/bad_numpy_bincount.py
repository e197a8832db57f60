import numpy as np
import torch


def one_hot(labels, K):
    return torch.from_numpy(np.eye(K, dtype=np.float32)[labels.numpy()])


def class_counts(labels, K):
    return torch.from_numpy(np.bincount(labels.numpy(), minlength=K).astype(np.int64))
