# trap: no-permute  (the image memory read straight into (B, N, C*P*P): strips, not square patches)
def patchify(images, P):
    B, C, H, W = images.shape
    N = (H // P) * (W // P)
    return images.contiguous().view(B, N, C * P * P)
