# trap: column-major-grid  (patches in column-major grid order: the grid axes permuted as (gw, gh))
def patchify(images, P):
    B, C, H, W = images.shape
    gh, gw = H // P, W // P
    x = images.view(B, C, gh, P, gw, P)
    x = x.permute(0, 4, 2, 1, 3, 5).contiguous()
    return x.view(B, gw * gh, C * P * P)
