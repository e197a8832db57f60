import torch


def one_hot(labels, K):
    rows = []
    for lab in labels.tolist():
        row = [0.0] * K
        row[lab] = 1.0
        rows.append(row)
    return torch.tensor(rows, dtype=torch.float32).reshape(len(rows), K)


def class_counts(labels, K):
    c = [0] * K
    for lab in labels.tolist():
        c[lab] += 1
    return torch.tensor(c)
