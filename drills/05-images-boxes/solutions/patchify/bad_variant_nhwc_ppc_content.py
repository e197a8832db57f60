# trap: channels-last-content
# variant: layout=nhwc
# the natural channels-last order, where the contract's tokens are (C, P, P)
def patchify(images, P):
    B, H, W, C = images.shape
    x = images.reshape(B, H // P, P, W // P, P, C).permute(0, 1, 3, 2, 4, 5)  # (B, gh, gw, P, P, C)
    return x.reshape(B, -1, C * P * P)
