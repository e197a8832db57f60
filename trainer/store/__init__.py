"""The progress store, moved from trainer/store.py as it was; the next commit splits it into modules."""
from trainer.store.store import *  # noqa: F401,F403
