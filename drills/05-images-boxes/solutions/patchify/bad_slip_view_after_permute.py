# trap: none
# The permutation is right, but .view after permute raises on the non-contiguous tensor.
def patchify(images, P):
    B, C, H, W = images.shape
    gh, gw = H // P, W // P
    x = images.reshape(B, C, gh, P, gw, P).permute(0, 2, 4, 1, 3, 5)
    return x.view(B, gh * gw, C * P * P)
