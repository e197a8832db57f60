# variant: layout=nhwc content=ppc
# channels-last images and (P, P, C) tokens: only the grid column and the pixel row trade places
def patchify(images, P):
    B, H, W, C = images.shape
    x = images.reshape(B, H // P, P, W // P, P, C).transpose(2, 3)  # (B, gh, gw, P, P, C)
    return x.reshape(B, -1, P * P * C)
