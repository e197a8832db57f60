"""Text: the one verdict renderer, the shape ledger, folding and escaping."""
