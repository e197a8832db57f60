"""`python -m trainer`: the same command line as the `drill` script."""
from __future__ import annotations

from trainer.cli import main

if __name__ == "__main__":
    main()
