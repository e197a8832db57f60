"""Applying variants: a spec under a choice of axis values (grader.spec.variants parses them).

`under(spec, variant)` returns the spec as written with each chosen value's prompt and hint fragments,
argument and return shapes and dtypes, generator options and traps applied, and
`call_kwargs`, the keyword arguments the reference, the oracle and the traps receive.
Apart from grader.spec.variants because `Spec.under` (grader.spec.records) calls it: this
module needs the records' types only to annotate, so it does not import them.
"""
from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from grader.errors import UsageError, cut

if TYPE_CHECKING:
    from grader.spec.records import Axis, FunctionSpec, Spec, Trap, VariantValue


def fuzzy(text: str) -> re.Pattern[str]:
    """A pattern for `text` that ignores how whitespace runs (a prompt is folded YAML)."""
    return re.compile(r"\s+".join(re.escape(w) for w in text.split()))


def apply_prompt(prompt: str, edits: Sequence[tuple[str, str]]) -> str:
    """The prompt with each (from, to) fragment replaced, matched ignoring how whitespace runs."""
    for old, new in edits:
        text = new.strip().replace("\\", "\\\\")  # a replacement, not a template: no group references
        prompt = fuzzy(old).sub(text, prompt)
    return prompt


def choices(spec: Spec, variant: Mapping[str, str]) -> dict[str, str]:
    """The non-default choices of `variant`, checked: an unknown axis or value is a UsageError naming
    the choices."""
    axes = {a.name: a for a in (spec.base or spec).variants}
    out = {}
    for name, value in variant.items():
        axis = axes.get(name)
        if axis is None:
            known = ", ".join(axes) if axes else "none: it has no variants"
            raise UsageError(f"{spec.id} has no variant axis {cut(name)!r}; its axes: {known}")
        if value not in axis.values:
            raise UsageError(f"{spec.id}: {name}={cut(value)!r} is not a value of {name}; "
                             f"its values: {', '.join(axis.values)} (default {axis.default})")
        if value != axis.default:
            out[name] = value
    return {a: out[a] for a in axes if a in out}  # in spec order


def under(spec: Spec, variant: Mapping[str, str]) -> Spec:
    """`spec` under `variant` (axis -> value), from the spec as written."""
    base = spec.base or spec
    chosen = choices(base, variant)
    if chosen == spec.variant:
        return spec
    if not chosen:
        return base
    from grader.spec.case_id import case_id

    axes = {a.name: a for a in base.variants}
    values = [axes[a].values[v] for a, v in chosen.items()]
    prompt, hints = base.prompt, base.hints
    kwargs: dict[str, Any] = {}
    functions = list(base.functions)
    for v in values:
        prompt = apply_prompt(prompt, v.prompt)
        hints = tuple(apply_prompt(h, v.hints) for h in hints)
        kwargs.update(v.kwargs)
        functions = [_function_under(f, v) for f in functions]
    fns = tuple(functions)
    renamed = {old: new for v in values for old, new in v.cases.items()}  # names that say this convention
    cases = tuple(dataclasses.replace(c, name=renamed.get(c.name, c.name)) for c in base.cases)
    cases = tuple(dataclasses.replace(c, id=case_id(c, base.dims, fns, chosen)) for c in cases)
    return dataclasses.replace(base, prompt=prompt, hints=hints, functions=fns, cases=cases,
                               traps=traps_under(base, values), variant=chosen, call_kwargs=kwargs, base=base)


def _function_under(fn: FunctionSpec, v: VariantValue) -> FunctionSpec:
    gen, args = v.gen.get(fn.name, {}), v.args.get(fn.name, {})
    new_args = []
    for a in fn.args:
        if a.name in args:
            o = args[a.name]
            a = dataclasses.replace(a, shape=tuple(str(s) for s in o["shape"]) if "shape" in o else a.shape,
                                    dtype=o.get("dtype", a.dtype))
        if a.name in gen:
            a = dataclasses.replace(a, options={**a.options, **gen[a.name]})
        new_args.append(a)
    rets = fn.returns
    if fn.name in v.returns:
        rets = tuple(dataclasses.replace(r, shape=tuple(str(s) for s in o["shape"]) if "shape" in o else r.shape,
                                         dtype=o.get("dtype", r.dtype))
                     for r, o in zip(fn.returns, v.returns[fn.name]))
    return dataclasses.replace(fn, args=tuple(new_args), returns=tuple(rets))


def traps_under_default(traps: tuple[Trap, ...], axes: tuple[Axis, ...]) -> tuple[Trap, ...]:
    """The traps of the contract as written: all but those only some variant values add."""
    added_anywhere = {t for a in axes for v in a.values.values() for t in v.traps.add}
    return tuple(t for t in traps if t.id not in added_anywhere)


def traps_under(base: Spec, values: Sequence[VariantValue]) -> tuple[Trap, ...]:
    """The traps that apply under these values, with their messages flipped: a trap some value of the
    drill adds applies only under a chosen value that adds it; a dropped trap does not apply."""
    added_anywhere = {t for a in base.variants for v in a.values.values() for t in v.traps.add}
    added = {t for v in values for t in v.traps.add}
    dropped = {t for v in values for t in v.traps.drop}
    messages = {k: m for v in values for k, m in v.traps.messages.items()}
    out = []
    for t in base.all_traps or base.traps:
        if t.id in dropped or (t.id in added_anywhere and t.id not in added):
            continue
        out.append(dataclasses.replace(t, message=messages[t.id]) if t.id in messages else t)
    return tuple(out)
