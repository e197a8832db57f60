"""`:edit`: open the buffer in $EDITOR (a command line that may carry arguments)."""
from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from grader.spec.userfile import SOLUTION_LIMIT, UnreadableFile, read_text


@dataclass(frozen=True)
class EditResult:
    text: str | None  # the file's text when the editor succeeded
    problem: str = ""


EDITOR_VARIABLES = ("VISUAL", "EDITOR")  # $VISUAL first, as git, crontab and less read them


def editor_command(environ: dict[str, str] | None = None) -> list[str]:
    env = os.environ if environ is None else environ
    for name in EDITOR_VARIABLES:
        value = env.get(name, "").strip()
        if value:
            return shlex.split(value)
    return ["vi"]


def edit_text(text: str, drill_id: str, command: list[str] | None = None) -> EditResult:
    """Write text to <tmp>/<drill>.py, run the editor on it, read it back when it exits 0."""
    argv = command or editor_command()
    with tempfile.TemporaryDirectory(prefix="drill-edit-") as folder:
        path = Path(folder) / f"{drill_id.replace('-', '_')}.py"
        path.write_text(text, encoding="utf-8")
        try:
            status = subprocess.call([*argv, str(path)])
        except OSError as exc:
            return EditResult(None, f"could not start the editor {argv[0]!r}: {exc.strerror or exc}; set $EDITOR")
        if status != 0:
            return EditResult(None, f"the editor exited with status {status}; the buffer is unchanged")
        try:
            return EditResult(read_text(path, SOLUTION_LIMIT))
        except UnreadableFile as exc:
            return EditResult(None, f"could not read the edited file back: {exc.reason}; the buffer is unchanged")
