# trap: wrong-inverse-permutation
def unpatchify(tokens, C, H, W, P):
    B = tokens.shape[0]
    x = tokens.reshape(B, H // P, W // P, C, P, P)
    return x.permute(0, 2, 4, 1, 3, 5).reshape(B, C, H, W)
