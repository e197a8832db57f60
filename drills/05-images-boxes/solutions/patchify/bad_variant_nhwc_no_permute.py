# trap: no-permute
# variant: layout=nhwc
def patchify(images, P):
    B, H, W, C = images.shape
    N = (H // P) * (W // P)
    return images.reshape(B, N, C * P * P)
