# trap: none
# Right in every case, but it cannot train: no gradient reaches img or txt (its values leave autograd on the way: .item(), .tolist(), .detach() or a NumPy copy).
import math

import torch


def clip_loss(img, txt, logit_scale):
    B = img.shape[0]
    s = math.exp(float(logit_scale))
    a = [img[i].double() / img[i].double().norm() for i in range(B)]
    b = [txt[j].double() / txt[j].double().norm() for j in range(B)]
    L = [[s * float(a[i] @ b[j]) for j in range(B)] for i in range(B)]

    def nll(row, k):
        m = max(row)
        return m + math.log(sum(math.exp(v - m) for v in row)) - row[k]

    i2t = sum(nll(L[i], i) for i in range(B)) / B
    t2i = sum(nll([L[i][j] for i in range(B)], j) for j in range(B)) / B
    return torch.tensor((i2t + t2i) / 2, dtype=torch.float32, device=img.device)
