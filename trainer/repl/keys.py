"""Key bindings: Enter runs a `:`-line, auto-indent, command keys, y/n answers, Ctrl-C."""
from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.buffer import Buffer
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition, Filter, vi_navigation_mode
from prompt_toolkit.key_binding.vi_state import InputMode
from prompt_toolkit.key_binding import KeyBindings, KeyBindingsBase, merge_key_bindings
from prompt_toolkit.key_binding.key_processor import KeyPressEvent

from trainer.repl.code import COMMANDISH, emptied_line, untouched
from trainer.repl.commands import parse_command_line

if TYPE_CHECKING:
    from trainer.repl.app import DrillRepl

INDENT = "    "


def next_indent(line: str) -> str:
    """The indentation for the line after `line`: kept, one deeper after a ':'."""
    stripped = line.rstrip()
    indent = line[: len(line) - len(line.lstrip())]
    if stripped.endswith(":") and not stripped.lstrip().startswith("#"):
        return indent + INDENT
    first = stripped.lstrip().split(" ", 1)[0] if stripped.strip() else ""
    if first in ("return", "pass", "raise", "break", "continue") and len(indent) >= len(INDENT):
        return indent[: -len(INDENT)]
    return indent


def after_command(text: str, row: int, skeleton: str) -> Document:
    """The buffer once command line `row` has run: the line emptied to its indentation, the
    cursor on it. A buffer that is still the untouched skeleton gets the skeleton back
    exactly (its `pass` too), the cursor on the same line."""
    doc = emptied_line(text, row)
    lines, skel = doc.text.split("\n"), skeleton.split("\n")
    if len(lines) != len(skel) or not untouched(doc.text, skeleton):
        return doc
    line = skel[row]
    col = len(line) - len(line.lstrip()) if line.strip() == "pass" else min(len(lines[row]), len(line))
    return Document(skeleton, sum(len(x) + 1 for x in skel[:row]) + col)


def vi_origin(repl: DrillRepl, text: str) -> tuple[str, int] | None:
    """Where the person was before ':' opened a command line in vi normal mode, while that
    line is still the buffer's last line and still a command line; else None."""
    if repl.vi_return is None:
        return None
    before, cursor, prefix = repl.vi_return
    rest = text[len(prefix):]
    if not text.startswith(prefix) or "\n" in rest or not COMMANDISH.match(rest):
        return None
    return before, cursor


def build_key_bindings(repl: DrillRepl) -> KeyBindingsBase:
    """Every key of the REPL, added in the order prompt_toolkit weighs them (a later binding
    for the same key wins): questions, job cancelling, Enter and indenting, command keys,
    vi's ':', Ctrl-C, then cursor motion and scrolling."""
    kb = KeyBindings()
    asking = Condition(lambda: repl.question is not None)
    free = ~asking
    cancellable = Condition(lambda: bool(repl.busy and repl.jobs.cancellable))
    _question_keys(kb, repl, asking)
    _job_keys(kb, repl, free & cancellable)
    _line_keys(kb, repl, free)
    _command_keys(kb, repl, free)
    _vi_keys(kb, repl, free)

    @kb.add("c-c", filter=free & ~cancellable)
    def _interrupt(event: KeyPressEvent) -> None:
        repl.interrupt()

    _motion_keys(kb, repl, free)
    return merge_key_bindings([kb])


def _question_keys(kb: KeyBindings, repl: DrillRepl, asking: Condition) -> None:
    """While a question is open, every key goes to it."""
    @kb.add("escape", filter=asking, eager=True)
    @kb.add("c-c", filter=asking, eager=True)
    @kb.add("c-q", filter=asking, eager=True)
    def _cancel(event: KeyPressEvent) -> None:
        repl.cancel_question()

    @kb.add("<any>", filter=asking, eager=True)
    def _choice(event: KeyPressEvent) -> None:
        """A question's key (y/n, or s/e...); any other key is swallowed."""
        repl.press(event.data)


def _job_keys(kb: KeyBindings, repl: DrillRepl, cancellable: Filter) -> None:
    @kb.add("escape", filter=cancellable, eager=True)
    @kb.add("c-c", filter=cancellable, eager=True)
    def _cancel_job(event: KeyPressEvent) -> None:
        """Esc or Ctrl-C while a grade runs: cancel it and stay on the drill."""
        repl.cancel_job()


def _line_keys(kb: KeyBindings, repl: DrillRepl, free: Filter) -> None:
    """Enter (a `:`-line, the next item after a pass, or a new line indented), Tab and Backspace."""
    # after a pass, Enter goes on, unless the line is a command being typed (":quit")
    goes_on = Condition(lambda: repl.goes_on() and not COMMANDISH.match(repl.buffer.document.current_line))

    @kb.add("enter", filter=free & goes_on)
    def _enter_next(event: KeyPressEvent) -> None:
        """After a pass, with the buffer as it passed: Enter goes on to the next item."""
        repl.run_command("next")

    @kb.add("enter", filter=free & ~goes_on)
    def _enter(event: KeyPressEvent) -> None:
        buf = event.current_buffer
        doc = buf.document
        line = doc.current_line
        if parse_command_line(line) is not None:
            origin = vi_origin(repl, doc.text)
            if origin is not None:  # a command line opened by ':' in normal mode: back to where it was
                text, cursor = origin
                buf.set_document(Document(text, cursor))
                event.app.vi_state.input_mode = InputMode.NAVIGATION
            else:
                buf.set_document(after_command(doc.text, doc.cursor_position_row, repl.skeleton))
            repl.vi_return = None
            repl.run_line(line)
            return
        indent = next_indent(doc.current_line_before_cursor)
        buf.insert_text("\n" + indent)

    @kb.add("tab", filter=free)
    def _tab(event: KeyPressEvent) -> None:
        col = event.current_buffer.document.cursor_position_col
        event.current_buffer.insert_text(" " * (len(INDENT) - col % len(INDENT)))

    @kb.add("s-tab", filter=free)
    def _dedent(event: KeyPressEvent) -> None:
        buf = event.current_buffer
        before = buf.document.current_line_before_cursor
        if before.endswith(INDENT) and not before.strip():
            buf.delete_before_cursor(len(INDENT))

    @kb.add("backspace", filter=free)
    def _backspace(event: KeyPressEvent) -> None:
        buf = event.current_buffer
        before = buf.document.current_line_before_cursor
        if before and not before.strip() and len(before) % len(INDENT) == 0:
            buf.delete_before_cursor(len(INDENT))
        else:
            buf.delete_before_cursor(1)


def _command_keys(kb: KeyBindings, repl: DrillRepl, free: Filter) -> None:
    """The key each `:`-command shows in the bar, and F5 / F6."""
    def bind(key: str, name: str) -> None:
        @kb.add(key, filter=free)
        def _run(event: KeyPressEvent) -> None:
            repl.run_command(name)

    for cmd in {c.info.name: c for c in repl.commands.values()}.values():
        if cmd.info.key:
            bind(cmd.info.key, cmd.info.name)
    bind("f5", "submit")
    bind("f6", "try")


def _vi_keys(kb: KeyBindings, repl: DrillRepl, free: Filter) -> None:
    """vi normal mode's ':' command line, and Escape out of it."""
    @kb.add(":", filter=free & vi_navigation_mode)
    def _vi_colon(event: KeyPressEvent) -> None:
        """vi normal mode: ':' starts a command line at the end of the buffer, as in vi."""
        buf = event.current_buffer
        text = buf.text if buf.text.endswith("\n") or not buf.text else buf.text + "\n"
        repl.vi_return = (buf.text, buf.cursor_position, text)
        buf.set_document(Document(text + ":", len(text) + 1))
        event.app.vi_state.input_mode = InputMode.INSERT

    vi_command_line = Condition(lambda: vi_origin(repl, repl.buffer.text) is not None)

    @kb.add("escape", filter=free & vi_command_line, eager=True)
    def _vi_cancel(event: KeyPressEvent) -> None:
        """Escape on the command line ':' opened: the line goes, the cursor goes back."""
        origin = vi_origin(repl, event.current_buffer.text)
        if origin is None:  # the filter saw it; the line changed since
            return
        text, cursor = origin
        repl.vi_return = None
        event.current_buffer.set_document(Document(text, cursor))
        event.app.vi_state.input_mode = InputMode.NAVIGATION


def _motion_keys(kb: KeyBindings, repl: DrillRepl, free: Filter) -> None:
    # Up and Down only move the cursor; earlier submissions come back with Alt-P / Alt-N
    # (a stray Up on the first line must never swap the buffer out).
    vi_nav = free & vi_navigation_mode

    @kb.add("up", filter=free)
    @kb.add("c-p", filter=free)
    @kb.add("k", filter=vi_nav)
    def _cursor_up(event: KeyPressEvent) -> None:
        event.current_buffer.cursor_up(count=event.arg)

    @kb.add("down", filter=free)
    @kb.add("j", filter=vi_nav)
    def _cursor_down(event: KeyPressEvent) -> None:
        event.current_buffer.cursor_down(count=event.arg)

    @kb.add("c-n", filter=free)
    def _next_or_down(event: KeyPressEvent) -> None:
        """Ctrl-N: the next item after a pass; otherwise a line down."""
        if repl.passed() and (repl.options.in_flow or repl.state.next_offer is not None):
            repl.run_command("next")
        else:
            event.current_buffer.cursor_down(count=event.arg)

    def _recall(buffer: Buffer, step: int, count: int) -> None:
        """Alt-P / Alt-N: an earlier (later) submission, skipping one that is the buffer as it
        stands (the submit just made is both the buffer and the latest entry)."""
        before = buffer.text
        for _ in range(count):
            index = buffer.working_index
            (buffer.history_backward if step < 0 else buffer.history_forward)()
            while buffer.text == before and buffer.working_index != index:
                index = buffer.working_index
                (buffer.history_backward if step < 0 else buffer.history_forward)()
            before = buffer.text

    @kb.add("escape", "p", filter=free)
    def _history_back(event: KeyPressEvent) -> None:
        _recall(event.current_buffer, -1, event.arg)

    @kb.add("escape", "n", filter=free)
    def _history_forward(event: KeyPressEvent) -> None:
        _recall(event.current_buffer, 1, event.arg)

    @kb.add("pageup", filter=free)
    def _up(event: KeyPressEvent) -> None:
        repl.scroll_page(-1)

    @kb.add("pagedown", filter=free)
    def _down(event: KeyPressEvent) -> None:
        repl.scroll_page(1)
