"""Reference and traps for one-hot-counts."""
import torch


def one_hot(labels, K: int):
    N = labels.shape[0]
    out = torch.zeros(N, K, dtype=torch.float32, device=labels.device)  # on the labels' device (a GPU too)
    return out.scatter_(1, labels[:, None], 1.0)  # row i gets a 1 in column labels[i]


def class_counts(labels, K: int):
    counts = torch.zeros(K, dtype=torch.int64, device=labels.device)
    return counts.index_add_(0, labels, torch.ones_like(labels))  # accumulates duplicates


def make_labels(ctx, shape, dtype, style="repeated"):
    """Labels (N,) in [0, K).

    repeated: any class, N > K so classes repeat; top-missing: the top 2+ classes never appear;
    middle-missing: one class in the middle never appears; same: every label equal.
    """
    style = str(ctx.params.get("style", style))
    (N,) = shape
    K = ctx.sizes["K"]
    if "labels" in ctx.shared:
        return ctx.shared["labels"].clone()
    if style == "top-missing":
        high = ctx.rng.randint(max(1, K // 2), K - 2)
        labels = torch.randint(0, high, (N,), generator=ctx.gen)
        labels[0] = high - 1
    elif style == "middle-missing":
        hole = ctx.rng.randrange(1, K - 1)
        labels = torch.randint(0, K - 1, (N,), generator=ctx.gen)
        labels[labels >= hole] += 1
        labels[0] = K - 1
    elif style == "same":
        labels = torch.full((N,), ctx.rng.randrange(K), dtype=torch.int64)
    else:
        labels = torch.randint(0, K, (N,), generator=ctx.gen)
        labels[0] = labels[1] = K - 1
    ctx.shared["labels"] = labels
    return labels.clone()


def trap_indexed_increment(labels, K: int):
    counts = torch.zeros(K, dtype=torch.int64, device=labels.device)
    counts[labels] += 1  # one write per distinct index: every present class gets 1
    return counts


def trap_sized_by_max(labels, K: int):
    n = int(labels.max()) + 1  # bincount without minlength
    return torch.zeros(n, dtype=torch.int64, device=labels.device).index_add_(0, labels, torch.ones_like(labels))


def trap_counts_wrong_axis(labels, K: int):
    return one_hot(labels, K).sum(1).to(torch.int64)  # (N,): one per sample


def trap_one_hot_sized_by_max(labels, K: int):
    n = int(labels.max()) + 1
    return torch.zeros(labels.shape[0], n, device=labels.device).scatter_(1, labels[:, None], 1.0)


def trap_scatter_dim0(labels, K: int):
    return torch.zeros(labels.shape[0], K, device=labels.device).scatter_(0, labels[:, None], 1.0)
