# trap: channels-first-content
# variant: content=ppc
# the contract's (C, P, P) reshape from memory, under MAE's (P, P, C) tokens
def unpatchify(tokens, C, H, W, P):
    B = tokens.shape[0]
    x = tokens.reshape(B, H // P, W // P, C, P, P).permute(0, 3, 1, 4, 2, 5)
    return x.reshape(B, C, H, W)
