"""Where the person's data lives: DRILL_HOME, or the platform's user data folder."""
from __future__ import annotations

import os
from pathlib import Path


def drill_home() -> Path:
    """The folder holding the progress database, drafts and settings (not created here)."""
    env = os.environ.get("DRILL_HOME")
    if env:
        return Path(env).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("drill", appauthor=False))


def extra_drill_paths() -> list[Path]:
    """Folders named in DRILL_PATH (os.pathsep separated), searched after the built-in drills."""
    raw = os.environ.get("DRILL_PATH", "")
    return [Path(p).expanduser() for p in raw.split(os.pathsep) if p.strip()]
