# trap: repeat-tiles  (torch.cat of the kv heads g times, computed in float32 for fp16 inputs)
import torch


def gqa_attention(q, k, v):
    g = q.shape[1] // k.shape[1]
    k = torch.cat([k] * g, dim=1).float()
    v = torch.cat([v] * g, dim=1).float()
    scores = torch.einsum("bhtd,bhsd->bhts", q.float(), k) * q.shape[-1] ** -0.5
    return torch.einsum("bhts,bhsd->bhtd", scores.softmax(-1), v).to(q.dtype)
