# The test written without a division, u * q <= p, in float32; the residual of a padded q (a zero row K).
import torch
import torch.nn.functional as F


def speculative_accept(draft_tokens, q, p, u):
    K = q.shape[1]
    p32, q32 = p.float(), q.float()
    p_x = p32[:, :K].gather(-1, draft_tokens[..., None])[..., 0]
    q_x = q32.gather(-1, draft_tokens[..., None])[..., 0]
    ok = u.float() * q_x <= p_x
    first_fail = torch.where(ok, K, torch.arange(K, device=ok.device)).min(dim=1).values  # K when none fails
    n = first_fail
    q_pad = F.pad(q32, (0, 0, 0, 1))  # (B, K+1, V): no draft at position K
    diff = (p32 - q_pad).clamp_min(0)  # row K is p itself
    pick = F.one_hot(n, K + 1).to(diff.dtype)  # (B, K+1)
    res = torch.einsum("bk,bkv->bv", pick, diff)
    return n, (res / res.sum(-1, keepdim=True)).to(p.dtype)
