# trap: none
# The inverse permutation is right, but .view after permute raises (not contiguous).
def unpatchify(tokens, C, H, W, P):
    B = tokens.shape[0]
    gh, gw = H // P, W // P
    x = tokens.reshape(B, gh, gw, C, P, P).permute(0, 3, 1, 4, 2, 5)
    return x.view(B, C, H, W)
