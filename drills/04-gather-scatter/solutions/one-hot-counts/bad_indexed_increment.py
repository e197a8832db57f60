# trap: indexed-increment
import torch


def one_hot(labels, K):
    return torch.zeros(len(labels), K).scatter(1, labels.unsqueeze(1), 1.0)


def class_counts(labels, K):
    counts = torch.zeros(K, dtype=torch.long)
    counts[labels] += 1
    return counts
