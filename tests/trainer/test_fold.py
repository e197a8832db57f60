"""trainer.text.fold: the width a stream's lines are folded to, and folding at spaces."""
from __future__ import annotations

import io
import os
import pty

from trainer.text.fold import fold_line, terminal_width_of


def test_a_pipe_or_a_closed_stream_gets_no_width_and_a_terminal_gets_its_own(monkeypatch):
    monkeypatch.setenv("COLUMNS", "57")
    assert terminal_width_of(io.StringIO()) is None
    closed = io.StringIO()
    closed.close()
    assert terminal_width_of(closed) is None
    leader, follower = pty.openpty()
    try:
        with os.fdopen(follower, "w", closefd=False) as terminal:
            assert terminal_width_of(terminal) == 57
    finally:
        os.close(leader)
        os.close(follower)


def test_a_line_folds_at_spaces_never_inside_a_word():
    line = "drill: unknown drill id 'no-such-drill-with-a-long-name'; `drill list` shows every id"
    parts = fold_line(line, 40)
    assert len(parts) > 1 and all(len(p) <= 40 for p in parts)
    assert " ".join(p.strip() for p in parts) == line
