# trap: grid-axes-swapped
# variant: layout=nhwc
def unpatchify(tokens, C, H, W, P):
    B = tokens.shape[0]
    x = tokens.reshape(B, H // P, W // P, C, P, P).permute(0, 2, 4, 1, 5, 3)  # (B, gw, P, gh, P, C)
    return x.reshape(B, H, W, C)
