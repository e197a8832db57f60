"""`:try` output: the example's sizes (or the smallest failing case's), then every tensor the solution made, by line."""
from __future__ import annotations

from typing import Any, Mapping

from trainer.text.markup import printable
from trainer.text.verdict import Fragments, dims_text, shape_comment_lines


def render_trace(result: dict[str, Any]) -> Fragments:
    where = str(result.get("case") or "") or "the example inputs"  # or the smallest failing case (grader.trace)
    out: Fragments = [("class:head bold", "TRY"), ("", f" on {printable(where)}  "),
                      ("class:dims", dims_text(result.get("dims", {})) + "\n")]
    if result.get("error") and not result.get("calls"):
        out.append(("class:fail", f"  {result['error']}\n"))
        return out
    for call in result.get("calls", []):
        out.append(("class:head", f"  {call.get('function')}("))
        out.append(("", ", ".join(_arg(a) for a in call.get("args", [])) + ")\n"))
        last_line = None
        for step in call.get("steps", []):
            if step.get("line") != last_line:
                out.append(("class:dim", f"  {step.get('line'):>4} "))
                out.append(("class:code", f"{step.get('text', '')}\n"))
                last_line = step.get("line")
            times = f"  ×{step['count']}" if step.get("count", 1) > 1 else ""
            out.append(("class:dim", f"         {step.get('op', ''):<14}"))
            out.append(("class:shape", f"{step.get('names')}"))
            out.append(("class:dim", f"  {tuple(step.get('shape', []))} {step.get('dtype', '')}{times}\n"))
        if call.get("truncated"):
            out.append(("class:dim", "         ... (more steps not shown)\n"))
        for ret in call.get("returns", []):
            out.append(("class:head", f"  {ret.get('name')} "))
            out.append(("class:shape" if "names" in ret else "", _value(ret) + "\n"))
        if call.get("error"):
            out.append(("class:fail", f"  {call['error']}\n"))
        for line in call.get("gpu", []):  # the device case and memory at scale (fake tensors, grader.fake)
            out.append(("" if line.get("ok") else "class:fail", f"  {printable(line.get('text', ''))}\n"))
    return out + shape_comment_lines(result.get("shape_comments") or [], 100)


def _arg(a: dict[str, Any]) -> str:
    return f"{a.get('name')}: {_value(a)}"


def _value(a: dict[str, Any]) -> str:
    if "names" in a:
        return f"{a['names']} {a.get('dtype', '')}".strip()
    return str(a.get("value"))


def unnarrated_lines(source: str, trace: Mapping[str, Any]) -> tuple[int, ...]:
    """A mock's narrate setting: the lines of `source` that made a tensor on the example run (`trace`,
    grader.trace's result for it) with no shape comment on or just above them (grader.judge.shape_comments)."""
    from grader.judge.shape_comments import comments

    said = {line for line, _, _ in comments(source)}
    made = {int(step["line"]) for call in trace.get("calls") or [] for step in call.get("steps") or []
            if isinstance(step, Mapping) and isinstance(step.get("line"), int)}
    return tuple(sorted(made - said))
