"""Where the person's data lives (DRILL_HOME, or the platform's user data folder),
and where the drills live (the built-in ones, then DRILL_PATH)."""
from __future__ import annotations

import os
from pathlib import Path

# the one reader of DRILL_PATH is grader.catalogue (a worker process started on its own reads it too)
from grader.catalogue import default_roots


def drill_home() -> Path:
    """The folder holding the progress database, drafts and settings (not created here)."""
    env = os.environ.get("DRILL_HOME")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("drill", appauthor=False))


def drill_roots() -> list[Path]:
    """The roots the trainer loads its catalogue from and passes to the grader: the
    built-in drills, then DRILL_PATH."""
    return default_roots()
