"""The prompt_toolkit REPL for one drill."""
from __future__ import annotations
