# The accept loop as a sampler writes it for one request, run for every row.
import torch


def speculative_accept(draft_tokens, q, p, u):
    B, K, V = q.shape
    ns, nexts = [], []
    for b in range(B):
        n = 0
        for i in range(K):
            x = int(draft_tokens[b, i])
            if float(u[b, i]) <= float(p[b, i, x]) / float(q[b, i, x]):
                n += 1
            else:
                break
        if n == K:
            nexts.append(p[b, K])
        else:
            r = (p[b, n].float() - q[b, n].float()).clamp(min=0)
            nexts.append((r / r.sum()).to(p.dtype))
        ns.append(n)
    return torch.tensor(ns, dtype=torch.int64, device=p.device), torch.stack(nexts)
