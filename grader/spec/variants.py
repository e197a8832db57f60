"""Variants: conventions real code follows the other way, as axes of named values
(drills/README.md, "Variants"). One value of each axis is the default, the contract
as written, so nothing already recorded changes meaning.

- `parse_variants`: the `variants:` section of a spec, checked against the rest of it
  (prompt fragments that exist, arguments, generator options, trap ids);
- `under(spec, variant)`: the spec under a choice of values, with prompt, argument and
  return shapes and dtypes, generator options and traps applied, and `call_kwargs`,
  the keyword arguments the reference, the oracle and the traps receive;
- `parse_variant_args`: `--variant axis=value ...` or `--variant random` (a combination
  other than the default, drawn from the seed);
- `describe`: "mask=pad layout=tbd", "default" for {}.

Torch-free: `drill show` uses it.
"""
from __future__ import annotations

import itertools
import math
import random
import re
from typing import Any, Mapping, Sequence

from grader.errors import UsageError, cut
from grader.spec import names
from grader.spec.combos import nth_of_product, product_index
from grader.spec.reader import _k, _Problems, _Reader
from grader.spec.records import (
    NAME_RE,
    TENSOR_DTYPES,
    ArgSpec,
    Axis,
    FunctionSpec,
    Spec,
    Trap,
    VariantTraps,
    VariantValue,
)
from grader.spec.variant_apply import apply_prompt, fuzzy, choices, traps_under, traps_under_default, under
from grader.spec.yaml_lines import _line_of

__all__ = ["RANDOM", "apply_prompt", "choices", "combinations", "describe", "draw", "labels", "parse_variant_args",
           "parse_variants", "traps_under", "traps_under_default", "under"]

AXIS_RE = re.compile(r"[a-z][a-z0-9_]*")
VALUE_RE = re.compile(r"[a-z0-9]+([-_][a-z0-9]+)*")
RANDOM = "random"


# ------------------------------------------------------------------ parsing


def parse_variants(top: _Reader, problems: _Problems, prompt: str, functions: tuple[FunctionSpec, ...],
                   traps: tuple[Trap, ...], dim_names: set[str], hints: tuple[str, ...] = ()) -> tuple[Axis, ...]:
    """The `variants:` section: every problem recorded with its line, the axes that parse returned."""
    raw = top.get("variants", default={}) or {}
    if top.has("variants") and not raw:
        problems.add(top.line_of("variants"), "variants", "name at least one axis, or leave the section out")
    axes = []
    kwarg_axis: dict[str, str] = {}
    for name, body in raw.items():
        line = _line_of(raw, name, top.line_of("variants"))
        where = f"variants.{_k(name)}"
        if not isinstance(name, str) or not AXIS_RE.fullmatch(name):
            problems.add(line, where, "an axis name is lower-case letters, digits and '_', starting with a letter")
            continue
        r = _Reader(body, where, line, problems, "axis")
        default = r.get("default") or ""
        values_raw = r.get("values") or {}
        values: dict[str, VariantValue] = {}
        for vname, vbody in values_raw.items():
            vline = _line_of(values_raw, vname, r.line_of("values"))
            vwhere = f"{where}.values.{_k(vname)}"
            if not isinstance(vname, str) or not VALUE_RE.fullmatch(vname) or vname == RANDOM:
                problems.add(vline, vwhere, "a value name is lower-case words joined by '-' or '_' (not 'random')")
                continue
            value = _parse_value(vname, vbody, vline, vwhere, problems, prompt, functions, traps, dim_names, hints)
            if value is not None:
                values[vname] = value
        if r.has("values") and len(values_raw) < 2:
            problems.add(r.line_of("values"), f"{where}.values", "an axis needs at least two values: the default and another")
        if default and default not in values_raw:
            problems.add(r.line_of("default"), f"{where}.default",
                         f"{default!r} is not one of its values ({', '.join(map(str, values_raw)) or 'none'})")
        elif default in values and _changes(values[default]):
            problems.add(r.line_of("default"), f"{where}.default",
                         f"the default value {default!r} is the contract as written: it changes nothing "
                         "(move its prompt, hints, kwargs, gen, args, returns and traps into the spec itself)")
        for v in values.values():
            for kw in v.kwargs:
                owner = kwarg_axis.setdefault(kw, name)
                if owner != name:
                    problems.add(vline, f"{where}.values.{v.name}.kwargs.{kw}",
                                 f"the keyword {kw!r} is already the axis {owner!r}'s; one axis per keyword")
        if default and values:
            axes.append(Axis(name, default, values))
    _check_adds(axes, traps, top, problems)
    return tuple(axes)


def _changes(v: VariantValue) -> bool:
    t = v.traps
    return bool(v.prompt or v.hints or v.kwargs or v.gen or v.args or v.returns or t.drop or t.add or t.messages)


def _check_adds(axes: list[Axis], traps: tuple[Trap, ...], top: _Reader, problems: _Problems) -> None:
    """A trap some value adds must not also be dropped by that value."""
    for axis in axes:
        for v in axis.values.values():
            both = set(v.traps.add) & set(v.traps.drop)
            for tid in sorted(both):
                problems.add(top.line_of("variants"), f"variants.{axis.name}.values.{v.name}.traps",
                             f"trap {tid!r} is both added and dropped")


def _parse_value(name: str, body: Any, line: int, where: str, problems: _Problems, prompt: str,
                 functions: tuple[FunctionSpec, ...], traps: tuple[Trap, ...],
                 dim_names: set[str], hints: tuple[str, ...] = ()) -> VariantValue | None:
    r = _Reader(body, where, line, problems, "variant_value")
    label = (r.get("label") or "").strip()
    source = (r.get("source") or "").strip()
    for key, text in (("label", label), ("source", source)):
        if r.has(key) and not text:
            problems.add(r.line_of(key), f"{where}.{key}", "expected non-empty text")
    edits = _parse_edits(r, "prompt", where, problems, (prompt,))
    hint_edits = _parse_edits(r, "hints", where, problems, hints)
    kwargs = r.get("kwargs", default={}) or {}
    for kw in kwargs:
        if not isinstance(kw, str) or not NAME_RE.fullmatch(kw):
            problems.add(_line_of(kwargs, kw, r.line_of("kwargs")), f"{where}.kwargs.{_k(kw)}",
                         "a keyword argument's name is a Python identifier")
    gen = _per_function(r, "gen", where, problems, functions,
                        lambda arg, opts, ln, w: _check_gen_options(arg, opts, ln, w, problems))
    args = _per_function(r, "args", where, problems, functions,
                         lambda arg, opts, ln, w: _check_arg_override(arg, opts, ln, w, problems, dim_names))
    returns = _parse_returns(r, where, problems, functions, dim_names)
    vtraps = _parse_traps(r, where, problems, traps)
    renamed = r.get("cases", default={}) or {}
    cases: dict[str, str] = {}
    for old_name, new_name in renamed.items():
        at = _line_of(renamed, old_name, r.line_of("cases"))
        if not isinstance(new_name, str) or not CASE_NAME_RE.fullmatch(new_name):
            problems.add(at, f"{where}.cases.{_k(old_name)}", "a case's new name is lower-case words joined by '-'")
        else:
            cases[str(old_name)] = new_name
    return VariantValue(name, label, source, edits, dict(kwargs), gen, args, returns, vtraps, hint_edits, cases)


CASE_NAME_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def check_case_renames(axes: tuple[Axis, ...], case_names: list[str], top: _Reader, problems: _Problems) -> None:
    """A value's `cases:` renames only cases the spec has, and never to a name another case keeps."""
    for axis in axes:
        for v in axis.values.values():
            where = f"variants.{axis.name}.values.{v.name}.cases"
            for old_name, new_name in v.cases.items():
                if old_name not in case_names:
                    problems.add(top.line_of("variants"), f"{where}.{_k(old_name)}", f"no case is named {old_name!r}")
                names = [v.cases.get(c, c) for c in case_names]
                if names.count(new_name) > 1:
                    problems.add(top.line_of("variants"), f"{where}.{_k(old_name)}",
                                 f"{new_name!r} would name two cases under this value")


def _parse_edits(r: _Reader, key: str, where: str, problems: _Problems,
                 texts: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """`prompt:` or `hints:` fragments, each of which must occur in the text (for hints, in one of them)."""
    raw = r.get(key, default=[]) or []
    out = []
    texts = tuple(texts)
    what = "the prompt" if key == "prompt" else "any hint"
    for i, edit in enumerate(raw):
        eline = _line_of(raw, i, r.line_of(key))
        er = _Reader(edit, f"{where}.{key}[{i}]", eline, problems, "prompt_edit")
        old, new = er.get("from"), er.get("to")
        if not isinstance(old, str) or not isinstance(new, str):
            continue
        if not old.split():
            problems.add(er.line_of("from"), f"{where}.{key}[{i}].from", "expected non-empty text")
            continue
        if not any(fuzzy(old).search(t) for t in texts):
            problems.add(er.line_of("from"), f"{where}.{key}[{i}].from",
                         f"{_short(old)!r} is not in {what} (matched ignoring whitespace); copy it from there")
            continue
        texts = tuple(apply_prompt(t, ((old, new),)) for t in texts)
        out.append((old, new))
    return tuple(out)


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _per_function(r: _Reader, key: str, where: str, problems: _Problems, functions: tuple[FunctionSpec, ...],
                  check: Any) -> dict[str, dict[str, dict[str, Any]]]:
    """`{argument: {...}}` (every function with that argument) or `{functions: {fn: {argument: {...}}}}`,
    normalised to {fn: {argument: {...}}}."""
    raw = r.get(key, default={}) or {}
    by_name = {f.name: f for f in functions}
    out: dict[str, dict[str, dict[str, Any]]] = {}
    if "functions" in raw and len(raw) == 1 and "functions" not in {a.name for f in functions for a in f.args}:
        fns = raw["functions"]
        if not isinstance(fns, dict):
            problems.add(r.line_of(key), f"{where}.{key}.functions", "expected a mapping of function names")
            return out
        groups = [(fname, fbody, _line_of(fns, fname, r.line_of(key)), f"{where}.{key}.functions.{_k(fname)}")
                  for fname, fbody in fns.items()]
    else:
        groups = [(None, raw, r.line_of(key), f"{where}.{key}")]
    for fname, body, line, at in groups:
        if fname is not None and fname not in by_name:
            problems.add(line, at, f"unknown function {_k(fname)!r}")
            continue
        if not isinstance(body, dict):
            problems.add(line, at, "expected a mapping of argument names")
            continue
        targets = [by_name[fname]] if fname is not None else list(functions)
        for aname, opts in body.items():
            aline = _line_of(body, aname, line)
            aw = f"{at}.{_k(aname)}"
            found = [(f, a) for f in targets for a in f.args if a.name == aname]
            if not found:
                problems.add(aline, aw, f"no function {'here ' if fname else ''}takes an argument {_k(aname)!r}")
                continue
            if not isinstance(opts, dict):
                problems.add(aline, aw, "expected a mapping")
                continue
            for f, a in found:
                if check(a, opts, aline, aw):
                    out.setdefault(f.name, {})[a.name] = dict(opts)
    return out


def _check_gen_options(arg: ArgSpec, opts: dict, line: int, where: str, problems: _Problems) -> bool:
    """Generator options for a built-in generator are options it takes (a `py:` one takes what it takes)."""
    if arg.gen is None:
        problems.add(line, where, f"{arg.name} has no generator to give options to")
        return False
    if arg.gen.startswith("py:"):
        return True
    takes = names.generators().get(arg.gen, ())
    bad = [o for o in opts if o not in takes]
    for opt in bad:
        problems.add(_line_of(opts, opt, line), f"{where}.{_k(opt)}",
                     f"generator {arg.gen!r} has no option {_k(opt)!r} (its options: {', '.join(takes) or 'none'})")
    return not bad


def _check_arg_override(arg: ArgSpec, opts: dict, line: int, where: str, problems: _Problems,
                        dim_names: set[str]) -> bool:
    from grader.spec.parts import _check_shape

    ok = True
    for key in opts:
        if key not in ("shape", "dtype"):
            problems.add(_line_of(opts, key, line), f"{where}.{_k(key)}", "an argument override is shape and dtype only")
            ok = False
    if not arg.is_tensor:
        problems.add(line, where, f"{arg.name} is not a tensor argument: only a tensor's shape and dtype change")
        return False
    if "shape" in opts and _check_shape(opts["shape"], dim_names, _line_of(opts, "shape", line), f"{where}.shape",
                                        problems) is None:
        ok = False
    if "dtype" in opts and opts["dtype"] not in TENSOR_DTYPES:
        problems.add(_line_of(opts, "dtype", line), f"{where}.dtype",
                     f"{opts['dtype']!r} is not one of {', '.join(TENSOR_DTYPES)}")
        ok = False
    return ok


def _parse_returns(r: _Reader, where: str, problems: _Problems, functions: tuple[FunctionSpec, ...],
                   dim_names: set[str]) -> dict[str, tuple[dict[str, Any], ...]]:
    from grader.spec.parts import _check_shape

    if not r.has("returns"):
        return {}
    raw = r.get("returns")
    by_name = {f.name: f for f in functions}
    if isinstance(raw, dict) and set(raw) == {"functions"}:
        fns = raw["functions"]
        groups = list(fns.items()) if isinstance(fns, dict) else []
        if not isinstance(fns, dict):
            problems.add(r.line_of("returns"), f"{where}.returns.functions", "expected a mapping of function names")
    elif len(functions) == 1:
        groups = [(functions[0].name, raw)]
    else:
        problems.add(r.line_of("returns"), f"{where}.returns",
                     "this drill has several functions: say whose returns change, as functions: {name: ...}")
        return {}
    out: dict[str, tuple[dict[str, Any], ...]] = {}
    for fname, body in groups:
        at = f"{where}.returns" + (f".functions.{_k(fname)}" if len(functions) > 1 or body is not raw else "")
        line = r.line_of("returns")
        if fname not in by_name:
            problems.add(line, at, f"unknown function {_k(fname)!r}")
            continue
        fn = by_name[fname]
        items = body if isinstance(body, list) else [body]
        if fn.tuple_return != isinstance(body, list) or len(items) != len(fn.returns):
            want = f"a list of {len(fn.returns)} overrides" if fn.tuple_return else "one mapping"
            problems.add(line, at, f"{fname}() returns {len(fn.returns)} value(s): give {want}")
            continue
        overrides = []
        for i, (item, ret) in enumerate(zip(items, fn.returns)):
            iw = f"{at}[{i}]" if fn.tuple_return else at
            if not isinstance(item, dict) or set(item) - {"shape", "dtype"}:
                problems.add(line, iw, "a return override is a mapping of shape and dtype")
                continue
            if item and not ret.is_tensor:
                problems.add(line, iw, "only a tensor return's shape and dtype change")
                continue
            if "shape" in item and _check_shape(item["shape"], dim_names, line, f"{iw}.shape", problems) is None:
                continue
            if "dtype" in item and item["dtype"] not in TENSOR_DTYPES:
                problems.add(line, f"{iw}.dtype", f"{item['dtype']!r} is not one of {', '.join(TENSOR_DTYPES)}")
                continue
            overrides.append(dict(item))
        if len(overrides) == len(items):
            out[fname] = tuple(overrides)
    return out


def _parse_traps(r: _Reader, where: str, problems: _Problems, traps: tuple[Trap, ...]) -> VariantTraps:
    if not r.has("traps"):
        return VariantTraps()
    tr = _Reader(r.data["traps"], f"{where}.traps", r.line_of("traps"), problems, "variant_traps")
    known = {t.id for t in traps}

    def ids(key: str) -> tuple[str, ...]:
        raw = tr.get(key, default=[]) or []
        out = []
        for i, tid in enumerate(raw):
            if tid not in known:
                problems.add(_line_of(raw, i, tr.line_of(key)), f"{where}.traps.{key}[{i}]",
                             f"{_k(tid)!r} is not a trap of this drill ({', '.join(sorted(known)) or 'none'})")
            else:
                out.append(tid)
        return tuple(out)

    drop, add = ids("drop"), ids("add")
    messages_raw = tr.get("messages", default={}) or {}
    messages = {}
    for tid, text in messages_raw.items():
        mline = _line_of(messages_raw, tid, tr.line_of("messages"))
        if tid not in known:
            problems.add(mline, f"{where}.traps.messages.{_k(tid)}", f"{_k(tid)!r} is not a trap of this drill")
        elif not isinstance(text, str) or not text.strip():
            problems.add(mline, f"{where}.traps.messages.{_k(tid)}", "expected the trap's message under this value")
        else:
            messages[tid] = text.strip()
    return VariantTraps(drop, add, messages)


# ------------------------------------------------------------------ the command line


def parse_variant_args(spec: Spec, args: Sequence[str], seed: int | None = None) -> dict[str, str]:
    """`--variant` values to the non-default choices: each `axis=value` (repeatable, or several in
    one, space-separated), or `random`: from the seed, a combination other than the default."""
    words = [w for arg in args for w in str(arg).split()]
    if not words:
        return {}
    base = spec.base or spec
    if RANDOM in words:
        if len(words) > 1:
            raise UsageError("--variant random draws every axis; give it alone, or name each axis=value")
        return draw(base, seed)
    variant: dict[str, str] = {}
    for word in words:
        axis, sep, value = word.partition("=")
        if not sep or not axis or not value:
            raise UsageError(f"--variant {cut(word)!r}: write axis=value (e.g. {_example(base)}), or random")
        if axis in variant and variant[axis] != value:
            raise UsageError(f"--variant gives {cut(axis)} twice ({cut(variant[axis])} and {cut(value)})")
        variant[axis] = value
    return choices(base, variant)


def _example(spec: Spec) -> str:
    if not spec.variants:
        return "mask=pad"
    a = spec.variants[0]
    return f"{a.name}={a.others()[0]}" if a.others() else f"{a.name}={a.default}"


def combinations(spec: Spec) -> list[dict[str, str]]:
    """Every combination of values other than the default, as non-default choices, in spec order."""
    base = spec.base or spec
    out = []
    for combo in itertools.product(*[list(a.values) for a in base.variants]):
        chosen = {a.name: v for a, v in zip(base.variants, combo) if v != a.default}
        if chosen:
            out.append(chosen)
    return out


def draw(spec: Spec, seed: int | None) -> dict[str, str]:
    """A combination other than the default, drawn from the seed (any seed when None): the one at
    a uniform index of `combinations(spec)`, found without listing them (40 two-valued axes
    make 2**40 of them)."""
    base = spec.base or spec
    axes = [list(a.values) for a in base.variants]
    count = math.prod(len(values) for values in axes)
    if count <= 1:
        raise UsageError(f"{spec.id} has no variants: --variant random has nothing to draw "
                         "(`drill show` lists a drill's axes)")
    rng = random.Random(seed) if seed is not None else random.SystemRandom()
    index = rng.randrange(count - 1)  # what rng.choice(combinations(spec)) draws from the same seed
    default = product_index([values.index(a.default) for a, values in zip(base.variants, axes)], axes)
    picked = nth_of_product(index + (index >= default), axes)  # the default's place is skipped
    return {a.name: v for a, v in zip(base.variants, picked) if v != a.default}


def each_value(spec: Spec) -> list[dict[str, str]]:
    """What `drill validate` proves a drill under: the contract ({}), then every non-default value of
    every axis on its own."""
    return [{}] + [{a.name: v} for a in spec.variants for v in a.others()]


def describe(variant: Mapping[str, str]) -> str:
    """"mask=pad layout=tbd"; "default" for {}."""
    return " ".join(f"{a}={v}" for a, v in variant.items()) or "default"


def labels(spec: Spec) -> list[tuple[str, list[str]]]:
    """Per axis, for `drill show`: its name, and a line per value with its label and source, the
    value `spec` is under marked with a `*`."""
    base = spec.base or spec
    out = []
    for axis in base.variants:
        chosen = spec.variant.get(axis.name, axis.default)
        lines = []
        for v in axis.values.values():
            mark = "*" if v.name == chosen else " "
            default = " (default)" if v.name == axis.default else ""
            lines.append(f"{mark} {axis.name}={v.name}{default}: {v.label}. Used by: {v.source}")
        out.append((axis.name, lines))
    return out
