"""Above the buffer: the drill's prompt and its shape ledger (folded to a title line)."""
from __future__ import annotations

from grader.spec import DimRule, Spec, shape_names
from grader.spec.variants import describe
from trainer.text.ledger import ledger_lines
from trainer.text.markup import printable
from trainer.text.verdict import Fragments, mmss, plain


def variant_text(spec: Spec, width: int) -> str:
    """The variant a drill is under, for the title: "variant mask=pad layout=tbd", the bare
    choices on a narrow screen; "" for the default (the contract as written)."""
    if not spec.variant:
        return ""
    choices = describe(spec.variant)
    full = f" variant {choices} "
    return full if len(full) <= width // 2 and width >= 80 else f" {choices} "


def title_fragments(spec: Spec, width: int = 200, hint: bool = True) -> Fragments:
    """One line: the id, the variant when not the default, the title, the topic and target
    when they fit, '^L prompt' when folded."""
    head = f" {spec.id} "
    variant = variant_text(spec, width)
    title = printable(spec.title)  # a pack's format characters shown as escapes, as in `drill show`
    parts = [f" {title}", f" · {spec.topic}", f" · target {mmss(spec.target_seconds)}"]
    tail = "  ^L prompt" if hint else ""
    width -= len(variant)
    room = width - len(head) - len(parts[2]) - 1  # for the title cut short, with "…"
    alone = f" target {mmss(spec.target_seconds)}"  # no title before it: no separator either
    cut = f" {title[:room - 1].rstrip()}…" + parts[2] if room > 12 else alone
    for rest, end in (("".join(parts), tail), (parts[0] + parts[2], tail), (parts[0] + parts[2], ""),
                      (cut, ""), (alone, "")):
        if len(head) + len(rest) + len(end) <= width:
            break
    out: Fragments = [("class:title bold", head)]
    if variant:
        out.append(("class:variant bold", variant))
    out.append(("class:dim", rest))
    if end:
        out.append(("class:dim", end))
    return out


def signature_lines(spec: Spec) -> list[str]:
    """The ledger folded to one line per function: name(arg (shape), ...) -> (shape)."""
    lines = []
    for fn in spec.functions:
        args = []
        for a in fn.args:
            args.append(f"{a.name} {shape_names(a.shape)}" if a.is_tensor else f"{a.name}: {a.type}")
        rets = [shape_names(r.shape) if r.is_tensor else str(r.type) for r in fn.returns]
        ret = rets[0] if len(rets) == 1 else "(" + ", ".join(rets) + ")"
        lines.append(f"{fn.name}({', '.join(args)}) -> {ret}")
    return lines


def fitted_header(spec: Spec, width: int, max_rows: int) -> Fragments:
    """The full header when it fits in max_rows; else the title, the one-line ledger and as
    much of the prompt as fits, with a pointer to ^L for the rest."""
    from trainer.repl.wrap import wrap_all

    full = wrap_all(header_fragments(spec, width), width)
    if _rows(full) <= max_rows:
        return full
    out: Fragments = title_fragments(spec, width, hint=False) + [("", "\n")]
    for line in signature_lines(spec):
        out.append(("class:ledger", f" {line}\n"))
    import textwrap

    room = max(1, max_rows - _rows(wrap_all(out, width)) - 1)
    words = printable(spec.prompt, keep="\n").split()
    lines = textwrap.wrap(" ".join(words), width - 1, initial_indent=" ", subsequent_indent=" ")
    shown = lines[:room]
    if len(lines) > room:
        shown[-1] = shown[-1][: max(0, width - 16)].rstrip() + " … (^L: all)"
    out.append(("class:prompt", "\n".join(shown)))
    return wrap_all(out, width)


def _rows(fragments: Fragments) -> int:
    return plain(fragments).count("\n") + 1


def header_fragments(spec: Spec, width: int = 200, title: bool = True) -> Fragments:
    out = title_fragments(spec, width, hint=False) + [("", "\n")] if title else []
    for line in prompt_lines(spec.prompt, width):
        out.append(("class:prompt", f"{line}\n"))
    ledger = ledger_lines(spec)
    if spec.dims:
        dims = "  ".join(_dim(r) for r in spec.dims.values())
        out.append(("class:dim", f" dims: {dims}\n"))
    for line in ledger:
        out.append(("class:ledger", f" {line}\n"))
    if spec.banned:
        out.append(("class:dim", " banned: " + ", ".join(spec.banned) + "\n"))
    if out and out[-1][1].endswith("\n"):
        out[-1] = (out[-1][0], out[-1][1][:-1])
    return out


def prompt_lines(prompt: str, width: int) -> list[str]:
    """The prompt, one space in: as written when its lines fit; else each paragraph refilled
    to the width (trainer.text.fold: blank lines, lists and indented lines kept), never a
    written line wrapped into a long and a short one."""
    from trainer.text.fold import fold

    prompt = printable(prompt.rstrip(), keep="\n")  # U+2028 shown, not a line break of splitlines
    lines = prompt.splitlines()
    if all(len(line) + 1 <= width for line in lines):
        return [f" {line}" for line in lines]
    return fold(prompt, width, indent=" ")


def _dim(rule: DimRule) -> str:
    if rule.expr:
        return f"{rule.name}={rule.expr}"
    if rule.low == rule.high:
        return f"{rule.name}={rule.low}"
    return f"{rule.name}∈[{rule.low},{rule.high}]"
