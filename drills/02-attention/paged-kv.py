"""Reference and traps for paged-kv.

Every function takes the variant keyword `layout` (drills/README.md, "Variants"): the pools' layout,
nhd (the contract): (N, P, H, dh), flash-attn's paged k_cache and FlashInfer's "NHD"; hnd:
(N, H, P, dh), FlashInfer's "HND" and vLLM's original PagedAttention kernels, heads before slots."""
import math

import torch


def make_inputs(ctx, *, layout="nhd"):
    """q (B, H, dh), the pools, block_table (B, M) and seq_lens (B,).

    Each sequence gets ceil(len / P) distinct pool blocks (N >= B * M, so there are always enough); the
    table entries after a sequence's last used block are ids of other sequences' blocks (or of free
    ones when B = 1). The slots past a sequence's end in its last block hold large values (v = 30), so
    a tail left unmasked shows. Lengths are drawn so that most are not a multiple of P.

    params: first_len ("one": sequence 0 has 1 token; "full": M * P tokens), descending (sequence 0's
    blocks in descending pool order), index_dtype ("int32" for block_table and seq_lens)."""
    s = ctx.sizes
    B, N, P, H, dh, M = s["B"], s["N"], s["P"], s["H"], s["dh"], s["M"]
    rng, params = ctx.rng, ctx.params
    lens = []
    for _ in range(B):
        n = rng.randint(1, M * P)
        if n % P == 0 and n > 1:
            n -= 1  # a partly filled last block
        lens.append(n)
    if params.get("first_len") == "one":
        lens[0] = 1
    elif params.get("first_len") == "full":
        lens[0] = M * P
    order = torch.randperm(N, generator=ctx.gen).tolist()
    table = torch.empty(B, M, dtype=torch.int64)
    used = []
    for b in range(B):
        k = -(-lens[b] // P)
        mine, order = order[:k], order[k:]
        if b == 0 and params.get("descending"):
            mine = sorted(mine, reverse=True)
        used.append(mine)
        table[b, :k] = torch.tensor(mine, dtype=torch.int64)
    for b in range(B):
        k = len(used[b])
        others = [x for c in range(B) if c != b for x in used[c]] or order  # valid ids of other sequences' blocks
        for j in range(k, M):
            table[b, j] = others[rng.randrange(len(others))]
    k_pool = torch.randn(N, P, H, dh, generator=ctx.gen)
    v_pool = torch.randn(N, P, H, dh, generator=ctx.gen)
    for b in range(B):
        tail = lens[b] % P
        if tail:  # the unused slots of the last block: stale data from an earlier request
            last = used[b][-1]
            k_pool[last, tail:] = 3.0 * torch.randn(P - tail, H, dh, generator=ctx.gen)
            v_pool[last, tail:] = 30.0
    if layout == "hnd":
        k_pool, v_pool = k_pool.transpose(1, 2).contiguous(), v_pool.transpose(1, 2).contiguous()
    index = torch.int32 if params.get("index_dtype") == "int32" else torch.int64
    return {"q": torch.randn(B, H, dh, generator=ctx.gen).to(ctx.dtype),
            "k_pool": k_pool.to(ctx.dtype), "v_pool": v_pool.to(ctx.dtype),
            "block_table": table.to(index), "seq_lens": torch.tensor(lens, dtype=index)}


def _gather(pool, block_table, layout):
    """(B, M * P, H, dh): each sequence's blocks in table order, token t at block t // P, slot t % P."""
    if layout == "hnd":
        pool = pool.transpose(1, 2)  # (N, P, H, dh) view
    B, M = block_table.shape
    _, P, H, dh = pool.shape
    return pool[block_table.long()].reshape(B, M * P, H, dh)  # (B, M, P, H, dh) -> (B, M*P, H, dh): tokens in order


def _attend(q, k, v, keep):
    """q (B, H, dh) against k, v (B, L, H, dh) where keep (B, L) says which tokens are real."""
    scores = torch.einsum("bhd,blhd->bhl", q, k) / math.sqrt(q.shape[-1])  # (B, H, L)
    if keep is not None:
        scores = scores.masked_fill(~keep[:, None, :], float("-inf"))
    return torch.einsum("bhl,blhd->bhd", torch.softmax(scores, dim=-1), v)


def _positions(block_table, k):
    return torch.arange(k.shape[1], device=block_table.device)[None, :]  # (1, M * P)


def paged_decode(q, k_pool, v_pool, block_table, seq_lens, *, layout="nhd"):
    k, v = _gather(k_pool, block_table, layout), _gather(v_pool, block_table, layout)
    keep = _positions(block_table, k) < seq_lens[:, None]  # token t of sequence b is real when t < seq_lens[b]
    return _attend(q, k, v, keep)


def trap_tail_not_masked(q, k_pool, v_pool, block_table, seq_lens, *, layout="nhd"):
    k, v = _gather(k_pool, block_table, layout), _gather(v_pool, block_table, layout)
    P = k.shape[1] // block_table.shape[1]
    blocks = (seq_lens + P - 1) // P  # the used blocks, read whole: ceil(len / P) * P keys
    keep = _positions(block_table, k) < (blocks * P)[:, None]
    return _attend(q, k, v, keep)


def trap_block_slot_swapped(q, k_pool, v_pool, block_table, seq_lens, *, layout="nhd"):
    pool_k = k_pool.transpose(1, 2) if layout == "hnd" else k_pool
    pool_v = v_pool.transpose(1, 2) if layout == "hnd" else v_pool
    B, M = block_table.shape
    _, P, H, dh = pool_k.shape
    # (B, M, P, ...) flattened slot-major: token t read from table column t % M, slot t // M
    k = pool_k[block_table.long()].transpose(1, 2).reshape(B, M * P, H, dh)
    v = pool_v[block_table.long()].transpose(1, 2).reshape(B, M * P, H, dh)
    keep = _positions(block_table, k) < seq_lens[:, None]
    return _attend(q, k, v, keep)


def trap_all_blocks_read(q, k_pool, v_pool, block_table, seq_lens, *, layout="nhd"):
    k, v = _gather(k_pool, block_table, layout), _gather(v_pool, block_table, layout)
    return _attend(q, k, v, None)  # every slot of every table entry: other sequences' tokens too


def trap_hnd_layout(q, k_pool, v_pool, block_table, seq_lens):
    """FlashInfer's HND / vLLM's heads-before-slots reading of an (N, P, H, dh) pool."""
    return paged_decode(q, k_pool, v_pool, block_table, seq_lens, layout="hnd")


def trap_nhd_layout(q, k_pool, v_pool, block_table, seq_lens):
    """The contract's (N, P, H, dh) reading of an (N, H, P, dh) pool."""
    return paged_decode(q, k_pool, v_pool, block_table, seq_lens, layout="nhd")
