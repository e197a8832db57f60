# trap: no-permute
def unpatchify(tokens, C, H, W, P):
    return tokens.view(-1, C, H, W)
