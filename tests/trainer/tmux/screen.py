"""One tmux server per test, driven as a person would: send keys, read the screen."""
from __future__ import annotations

import subprocess
import time


class TmuxSession:
    """A private tmux server (`-L socket`) with one session named `target`."""

    def __init__(self, socket: str, target: str) -> None:
        self.socket = socket
        self.target = target

    def __call__(self, *args: str) -> str:
        out = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=20)
        return out.stdout

    def start(self, width: int, height: int, command: str) -> None:
        self("new-session", "-d", "-s", self.target, "-x", str(width), "-y", str(height), command)

    def screen(self) -> str:
        return self("capture-pane", "-p", "-t", self.target)

    def wait_for(self, text: str, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.2)
        raise AssertionError(f"{text!r} never appeared; the screen was:\n{screen}")

    def type_line(self, text: str) -> None:
        self("send-keys", "-t", self.target, "-l", text)
        self("send-keys", "-t", self.target, "Enter")

    def close(self) -> None:
        self("kill-server")
