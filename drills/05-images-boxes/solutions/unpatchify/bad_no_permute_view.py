# trap: no-permute  (the tokens' memory read straight into (B, C, H, W))
def unpatchify(tokens, C, H, W, P):
    return tokens.contiguous().view(-1, C, H, W)
