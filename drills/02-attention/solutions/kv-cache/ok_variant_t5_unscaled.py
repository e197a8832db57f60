# variant: scale=none
# T5's attention: plain q . k scores, no 1/sqrt(dh) (Mesh TensorFlow folds it into the query init).
import torch


def decode_step(q_new, k_new, v_new, k_cache, v_cache):
    k = torch.cat((k_cache, k_new), dim=-2)
    v = torch.cat((v_cache, v_new), dim=-2)
    scores = torch.einsum("bhqd,bhkd->bhqk", q_new, k)
    return torch.einsum("bhqk,bhkd->bhqd", scores.softmax(-1), v), k, v


def kv_cache_bytes(L, H_kv, dh, T, B, bytes_per_elem):
    return 2 * L * H_kv * dh * T * B * bytes_per_elem
