"""Where the person's data lives (DRILL_HOME, or the platform's user data folder),
and where the drills live (the built-in ones, then DRILL_PATH)."""
from __future__ import annotations

import os
from pathlib import Path

# extra_drill_paths: the one reader of DRILL_PATH is grader.catalogue (a worker process reads it too)
from grader.catalogue import extra_drill_paths


def drill_home() -> Path:
    """The folder holding the progress database, drafts and settings (not created here)."""
    env = os.environ.get("DRILL_HOME")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("drill", appauthor=False))


def drill_roots() -> list[Path]:
    """The roots the trainer loads its catalogue from: the built-in drills, then DRILL_PATH."""
    from grader.catalogue import builtin_drill_root

    return [builtin_drill_root(), *extra_drill_paths()]
