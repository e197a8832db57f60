"""`drill watch`: grade a file again each time it is saved (mtime polling)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

from grader.report import Report
from grader.spec.userfile import SOLUTION_LIMIT, UnreadableFile, read_text
from trainer.text.fold import fold_line
from trainer.text.markup import printable
from trainer.text.verdict import Fragments, render


def file_stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def watch(path: Path, grade: Callable[[str], Report], emit: Callable[[Fragments], None], *,
          sleep: Callable[[float], None], now: Callable[[], str], stamp: Callable[[Path], Any] = file_stamp,
          interval: float = 0.3, rounds: int | None = None, width: int = 80,
          after: Callable[[Report, str], str] | None = None) -> int:
    """Poll `path`; on every change (and at the start) grade it and emit a compact verdict,
    then `after(report, source)`'s line (recording). Runs until interrupted, or for `rounds`
    polls (tests). Returns how many grades ran."""
    last: Any = None
    graded = 0
    polls = 0
    missing_told = False
    while rounds is None or polls < rounds:
        polls += 1
        current = stamp(path)
        if current is None:
            if not missing_told:
                emit([("class:fail", f"{printable(path)}: cannot read it (yet); waiting for it to appear\n")])
                missing_told = True
        elif current != last:
            last = current
            missing_told = False
            try:
                source = read_text(path, SOLUTION_LIMIT)
            except UnreadableFile as exc:
                text = f"{printable(path)}: {exc.reason}; watching for the next save"
                emit([("class:fail", "\n".join(fold_line(text, width, more="  ")) + "\n")])
            else:
                result = grade(source)
                graded += 1
                when: Fragments = [("class:dim", f"[{now()}] {printable(Path(path).name)}  ")]
                emit(when + render(result, "compact", width=width, title=False))
                if after is not None:
                    emit([("class:dim", f"  {after(result, source)}\n")])
        sleep(interval)
    return graded
