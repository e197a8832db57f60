def patchify(images, P):
    B, C, H, W = images.shape
    gh, gw = H // P, W // P
    x = images.view(B, C, gh, P, gw, P).transpose(3, 4)  # (B, C, gh, gw, P, P)
    x = x.flatten(4).permute(0, 2, 3, 1, 4)  # (B, gh, gw, C, P*P)
    return x.reshape(B, gh * gw, -1)
