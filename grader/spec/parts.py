"""The parts of a spec: dimensions, functions with their arguments and returns,
cases, tolerances, invariants, traps, quiz and the scale check. Each `_parse_*`
reads one section through a schema-backed `_Reader` and adds every problem
it finds; `grader.spec.parse` puts the parts together.
"""
from __future__ import annotations

import math
from typing import Any

from grader import dims as _dims
from grader.spec import names
from grader.spec.reader import _as_list, _k, _Problems, _Reader, _timeout
from grader.spec.records import (
    FLOAT_DTYPES,
    ID_RE,
    MASK_DTYPES,
    NAME_RE,
    PY_TYPES,
    TENSOR_DTYPES,
    ArgSpec,
    CaseSpec,
    DimRule,
    FunctionSpec,
    Invariant,
    Quiz,
    ReturnSpec,
    ScaleSpec,
    Tolerance,
    Trap,
)
from grader.spec.yaml_lines import _line_of


def _parse_dims(top: _Reader, problems: _Problems) -> dict[str, DimRule]:
    raw = top.get("dims", default={}) or {}
    dims: dict[str, DimRule] = {}
    for name, rule in raw.items():
        line = _line_of(raw, name, top.line_of("dims"))
        where = f"dims.{_k(name)}"
        if not isinstance(name, str) or not NAME_RE.fullmatch(name):
            problems.add(line, where, "a dimension name must be an identifier")
            continue
        if isinstance(rule, list):
            if len(rule) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in rule):
                problems.add(line, where, "a size range is [low, high] with two integers")
                continue
            low, high = rule
            if low < 0 or high < low:
                problems.add(line, where, f"bad size range [{low}, {high}]: need 0 <= low <= high")
                continue
            dims[name] = DimRule(name, low=low, high=high)
        elif isinstance(rule, int) and not isinstance(rule, bool):
            if rule < 0:
                problems.add(line, where, "a size must be >= 0")
                continue
            dims[name] = DimRule(name, low=rule, high=rule)
        elif isinstance(rule, str):
            bad = _dims.check_expr(rule)
            if bad:
                problems.add(line, where, bad)
                continue
            dims[name] = DimRule(name, expr=rule)
        else:
            problems.add(line, where, "a dimension rule is [low, high], a fixed size, or an expression like 'H * dh'")
    for d in dims.values():
        if d.expr:
            for n in _dims.expr_names(d.expr):
                if n not in dims:
                    problems.add(_line_of(raw, d.name, top.line_of("dims")), f"dims.{d.name}",
                                 f"expression uses unknown dimension '{n}'")
                elif dims[n].expr:
                    problems.add(_line_of(raw, d.name, top.line_of("dims")), f"dims.{d.name}",
                                 f"expression uses derived dimension '{n}'; derive from ranged dimensions only")
    return dims


def _check_shape(shape: Any, dim_names: set[str], line: int, where: str, problems: _Problems) -> tuple[str, ...] | None:
    if not isinstance(shape, list):
        problems.add(line, where, "a shape is a list of dimension names, e.g. [B, T, d]; [] for a 0-d tensor")
        return None
    out = []
    for item in shape:
        text = str(item)
        if isinstance(item, int) and not isinstance(item, bool):
            out.append(text)
            continue
        if not isinstance(item, str):
            problems.add(line, where, f"shape entry {item!r} must be a dimension name or expression")
            continue
        bad = _dims.check_expr(text)
        if bad:
            problems.add(line, where, bad)
            continue
        unknown = [n for n in _dims.expr_names(text) if n not in dim_names]
        if unknown:
            problems.add(line, where, f"unknown dimension '{unknown[0]}' (declare it under dims)")
            continue
        out.append(text)
    return tuple(out)


def _parse_functions(top: _Reader, problems: _Problems, dim_names: set[str],
                     oracles: dict[str, tuple[str, ...]] | None = None, own: str = "") -> tuple[FunctionSpec, ...]:
    """The `functions` section; `oracles` are the oracle names the spec may use (grader.spec.names:
    the drill's own file `own`, then the shared ones)."""
    if oracles is None:
        oracles = names.shared_oracles()
    raw = top.get("functions") or {}
    if top.has("functions") and not raw:
        problems.add(top.line_of("functions"), "functions", "name at least one function to write")
    out = []
    for fname, body in raw.items():
        line = _line_of(raw, fname, top.line_of("functions"))
        where = f"functions.{_k(fname)}"
        if not isinstance(fname, str) or not NAME_RE.fullmatch(fname):
            problems.add(line, where, "a function name must be a Python identifier")
            continue
        r = _Reader(body, where, line, problems, "function")
        args_raw = r.get("args") or {}
        args = []
        for aname, adef in args_raw.items():
            aline = _line_of(args_raw, aname, r.line_of("args"))
            args.append(_parse_arg(aname, adef, aline, f"{where}.args.{_k(aname)}", problems, dim_names))
        rets_raw = r.get("returns") or {}
        tuple_return = isinstance(rets_raw, list)
        rets = []
        for i, rdef in enumerate(rets_raw if tuple_return else [rets_raw]):
            rline = _line_of(rets_raw, i, r.line_of("returns")) if tuple_return else r.line_of("returns")
            rw = f"{where}.returns[{i}]" if tuple_return else f"{where}.returns"
            rets.append(_parse_return(rdef, rline, rw, problems, dim_names))
        raises = tuple(_as_list(r.get("raises", default=[])))
        for exc in raises:
            if exc not in _EXCEPTIONS:
                problems.add(r.line_of("raises"), f"{where}.raises", f"{exc!r} is not a built-in exception name")
        oracle = r.get("oracle", default="reference") or "reference"
        if oracle != "reference" and not oracle.startswith("py:") and oracle not in oracles:
            known = names.unknown("oracle", oracle, oracles)
            problems.add(r.line_of("oracle"), f"{where}.oracle",
                         known + (f"; a drill's own oracle is a function of {own}" if own else ""))
        inputs = r.get("inputs")
        checker = r.get("checker")
        gradient_where = r.get("gradient_where")
        wrt_raw = r.get("gradient_wrt")
        gradient_wrt = None
        if wrt_raw is not None:
            names_given = [str(x) for x in (wrt_raw if isinstance(wrt_raw, list) else [wrt_raw])]
            known_args = {a.name for a in args if a}
            for n in names_given:
                if n not in known_args:
                    problems.add(r.line_of("gradient_wrt"), f"{where}.gradient_wrt", f"{fname}() has no argument {n!r}")
            gradient_wrt = tuple(names_given)
        for key, value in (("inputs", inputs), ("checker", checker), ("gradient_where", gradient_where)):
            if value is not None and not value.startswith("py:"):
                problems.add(r.line_of(key), f"{where}.{key}", "must name a function of the reference file as 'py:name'")
        exact = r.get("exact", default=False)
        out.append(FunctionSpec(fname, tuple(a for a in args if a), tuple(x for x in rets if x), tuple_return,
                                raises, oracle, inputs, checker, bool(exact), gradient_where, gradient_wrt))
    return tuple(out)


_EXCEPTIONS = {"ValueError", "RuntimeError", "TypeError", "IndexError", "KeyError", "AssertionError", "ZeroDivisionError"}


def _parse_arg(name: Any, adef: Any, line: int, where: str, problems: _Problems, dim_names: set[str]) -> ArgSpec | None:
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        problems.add(line, where, "an argument name must be a Python identifier")
        return None
    r = _Reader(adef, where, line, problems, "arg")
    shape = None
    if r.has("shape"):
        shape = _check_shape(r.data["shape"], dim_names, r.line_of("shape"), f"{where}.shape", problems)
    dtype = r.get("dtype")
    typ = r.get("type")
    if shape is None and typ is None and not r.has("shape"):
        problems.add(line, where, "give either a tensor 'shape' or a Python 'type'")
    if shape is not None and dtype is None:
        dtype = "float"
    if dtype is not None and dtype not in TENSOR_DTYPES:
        problems.add(r.line_of("dtype"), f"{where}.dtype", f"{dtype!r} is not one of {', '.join(TENSOR_DTYPES)}")
    if typ is not None and typ not in PY_TYPES:
        problems.add(r.line_of("type"), f"{where}.type", f"{typ!r} is not one of {', '.join(PY_TYPES)}")
    gen = r.get("gen")
    param = r.get("param")
    value = r.data.get("value")
    if shape is not None and gen is None:
        problems.add(line, where, "a tensor argument needs a generator ('gen')")
    if shape is None and typ is not None and gen is None and param is None and "value" not in r.data:
        problems.add(line, where, "a Python argument needs 'value', 'param' or 'gen'")
    if isinstance(value, str):
        _check_value_expr(r, where, value, problems, dim_names)
    options = r.get("options", default={}) or {}
    if gen is not None and not gen.startswith("py:"):
        _check_generator(r, where, gen, options, problems)
    return ArgSpec(name, shape, dtype, typ, gen, value, param, r.data.get("default"), "default" in r.data, dict(options))


def _check_value_expr(r: _Reader, where: str, value: str, problems: _Problems, dim_names: set[str]) -> None:
    """An argument's `value` given as a text: an expression over known dimensions."""
    bad = _dims.check_expr(value)
    if bad:
        problems.add(r.line_of("value"), f"{where}.value", bad)
    else:
        unknown = [n for n in _dims.expr_names(value) if n not in dim_names]
        if unknown:
            problems.add(r.line_of("value"), f"{where}.value", f"unknown dimension '{unknown[0]}'")


def _check_generator(r: _Reader, where: str, gen: str, options: Any, problems: _Problems) -> None:
    """A built-in generator's name, and the options it is given: each one it takes."""
    if gen not in names.generators():
        problems.add(r.line_of("gen"), f"{where}.gen", names.unknown("generator", gen, names.generators()))
        return
    for opt in options:
        if opt not in names.generators()[gen]:
            takes = ", ".join(names.generators()[gen]) or "none"
            problems.add(_line_of(options, opt, r.line_of("options")), f"{where}.options.{_k(opt)}",
                         f"generator {gen!r} has no option {_k(opt)!r} (its options: {takes})")


def _parse_return(rdef: Any, line: int, where: str, problems: _Problems, dim_names: set[str]) -> ReturnSpec | None:
    r = _Reader(rdef, where, line, problems, "return")
    shape = None
    if r.has("shape"):
        shape = _check_shape(r.data["shape"], dim_names, r.line_of("shape"), f"{where}.shape", problems)
    dtype = r.get("dtype")
    typ = r.get("type")
    if not r.has("shape") and typ is None:
        problems.add(line, where, "give either a tensor 'shape' or a Python 'type'")
    if shape is not None and dtype is None:
        problems.add(line, where, "a tensor return needs a 'dtype' (float, loss, float32, int64, bool, ...)")
    if dtype is not None and dtype not in TENSOR_DTYPES:
        problems.add(r.line_of("dtype"), f"{where}.dtype", f"{dtype!r} is not one of {', '.join(TENSOR_DTYPES)}")
    if typ is not None and typ not in PY_TYPES:
        problems.add(r.line_of("type"), f"{where}.type", f"{typ!r} is not one of {', '.join(PY_TYPES)}")
    return ReturnSpec(shape, dtype, typ, r.get("name"))


def _parse_cases(top: _Reader, problems: _Problems, dim_names: set[str], fn_names: set[str]) -> tuple[CaseSpec, ...]:
    raw = top.get("cases") or []
    if top.has("cases") and not raw:
        problems.add(top.line_of("cases"), "cases", "list at least one case")
    seen: set[str] = set()
    out = []
    for i, cdef in enumerate(raw):
        line = _line_of(raw, i, top.line_of("cases"))
        where = f"cases[{i}]"
        r = _Reader(cdef, where, line, problems, "case")
        name = r.get("name") or f"case-{i}"
        if name in seen:
            problems.add(r.line_of("name"), f"{where}.name", f"duplicate case name {name!r}")
        seen.add(name)
        cdims = r.get("dims", default={}) or {}
        for k, v in cdims.items():
            dline = _line_of(cdims, k, r.line_of("dims"))
            if k not in dim_names:
                problems.add(dline, f"{where}.dims.{_k(k)}", f"unknown dimension '{_k(k)}'")
            elif isinstance(v, bool) or not isinstance(v, (int, str)) or (isinstance(v, str) and v not in dim_names):
                problems.add(dline, f"{where}.dims.{_k(k)}", "a case size is an integer or the name of another dimension")
        dtype = r.get("dtype", default="float32") or "float32"
        if dtype not in FLOAT_DTYPES:
            problems.add(r.line_of("dtype"), f"{where}.dtype", f"{dtype!r} is not one of {', '.join(FLOAT_DTYPES)}")
        mask = r.get("mask", default="bool") or "bool"
        if mask not in MASK_DTYPES:
            problems.add(r.line_of("mask"), f"{where}.mask", f"{mask!r} is not one of {', '.join(MASK_DTYPES)}")
        only = tuple(_as_list(r.get("only", default=[])))
        for f in only:
            if f not in fn_names:
                problems.add(r.line_of("only"), f"{where}.only", f"unknown function '{f}'")
        params = r.get("params", default={}) or {}
        timeout = _timeout(r, "timeout", problems, f"{where}.timeout", default=None)
        out.append(CaseSpec(name, r.get("description", default="") or "", dict(cdims),
                            dtype, mask, dict(params), only, bool(r.get("heavy", default=False)), timeout))
    return tuple(out)


def _parse_tolerance(top: _Reader, problems: _Problems) -> dict[str, Tolerance]:
    raw = top.get("tolerance", default={}) or {}
    out = {
        "float32": Tolerance(1e-5, 1e-4),
        "float16": Tolerance(2e-3, 1e-2),
        "float64": Tolerance(1e-10, 1e-8),
        "bfloat16": Tolerance(2e-2, 5e-2),
    }
    for dtype, tdef in raw.items():
        line = _line_of(raw, dtype, top.line_of("tolerance"))
        where = f"tolerance.{_k(dtype)}"
        if dtype not in FLOAT_DTYPES:
            problems.add(line, where, f"{dtype!r} is not one of {', '.join(FLOAT_DTYPES)}")
            continue
        r = _Reader(tdef, where, line, problems, "tolerance")
        atol = r.get("atol")
        rtol = r.get("rtol")
        if atol is not None and rtol is not None:
            if not (math.isfinite(atol) and math.isfinite(rtol)) or atol < 0 or rtol < 0:
                problems.add(line, where, "tolerances must be finite numbers >= 0")
            out[dtype] = Tolerance(float(atol), float(rtol))
    return out


def _parse_invariants(top: _Reader, problems: _Problems, fn_names: set[str]) -> tuple[Invariant, ...]:
    from grader.judge.invariant_kinds import kinds

    KINDS = kinds()
    raw = top.get("invariants", default=[]) or []
    out = []
    for i, idef in enumerate(raw):
        line = _line_of(raw, i, top.line_of("invariants"))
        where = f"invariants[{i}]"
        r = _Reader(idef, where, line, problems, "invariant")
        kind = r.get("kind") or ""
        if kind and not kind.startswith("py:") and kind not in KINDS:
            problems.add(r.line_of("kind"), f"{where}.kind",
                         f"unknown invariant {kind!r}; known: {', '.join(sorted(KINDS))}, or py:name")
        fn = r.get("function")
        if fn is not None and fn not in fn_names:
            problems.add(r.line_of("function"), f"{where}.function", f"unknown function '{fn}'")
        out.append(Invariant(kind, fn, dict(r.get("options", default={}) or {})))
    return tuple(out)


def _parse_traps(top: _Reader, problems: _Problems, fn_names: set[str]) -> tuple[Trap, ...]:
    raw = top.get("traps") or []
    if top.has("traps") and not raw:
        problems.add(top.line_of("traps"), "traps", "list at least one trap")
    out = []
    seen: set[str] = set()
    for i, tdef in enumerate(raw):
        line = _line_of(raw, i, top.line_of("traps"))
        where = f"traps[{i}]"
        r = _Reader(tdef, where, line, problems, "trap")
        tid = r.get("id") or ""
        if tid and not ID_RE.fullmatch(tid):
            problems.add(r.line_of("id"), f"{where}.id", "lower-case words joined by '-'")
        if tid in seen:
            problems.add(r.line_of("id"), f"{where}.id", f"duplicate trap id {tid!r}")
        seen.add(tid)
        fn = r.get("function") or ""
        replaces = r.get("replaces")
        if replaces is None:
            if len(fn_names) == 1:
                replaces = next(iter(fn_names))
            elif fn_names:
                problems.add(line, f"{where}.replaces", "this drill has several functions: say which one the trap replaces")
                replaces = ""
        elif replaces not in fn_names:
            problems.add(r.line_of("replaces"), f"{where}.replaces", f"unknown function '{replaces}'")
        match = r.get("match")
        if match is not None and not match.startswith("py:"):
            problems.add(r.line_of("match"), f"{where}.match", "must name a function of the reference file as 'py:name'")
        gradient = bool(r.get("gradient", default=False))
        if gradient and (match is not None or r.get("memory", default=False)):
            problems.add(r.line_of("gradient"), f"{where}.gradient",
                         "a backward trap is judged on the gradient case alone: no match: or memory: beside it")
        out.append(Trap(tid, r.get("message") or "", fn, replaces or "", r.get("why", default="") or "",
                        bool(r.get("memory", default=False)), match, _parse_also(r, where, problems, fn_names, replaces),
                        gradient))
    return tuple(out)


def _parse_also(r: _Reader, where: str, problems: _Problems, fn_names: set[str],
                replaces: str | None) -> tuple[tuple[str, str], ...]:
    """`also: {function: trap_function}`: the same mistake in other functions of the drill."""
    raw = r.get("also") or {}
    out = []
    for name, func in raw.items():
        if name not in fn_names or name == replaces:
            problems.add(r.line_of("also"), f"{where}.also", f"'{name}' is not another function of the drill")
        elif not isinstance(func, str) or not func:
            problems.add(r.line_of("also"), f"{where}.also.{name}", "name a function of the reference file")
        else:
            out.append((str(name), func))
    return tuple(out)


def _parse_quiz(top: _Reader, problems: _Problems) -> tuple[Quiz, ...]:
    from grader.judge.answers import parse_answer

    raw = top.get("quiz") or []
    if top.has("quiz") and len(raw) < 2:
        problems.add(top.line_of("quiz"), "quiz", "give at least two quick-fire questions")
    out = []
    for i, qdef in enumerate(raw):
        line = _line_of(raw, i, top.line_of("quiz"))
        where = f"quiz[{i}]"
        r = _Reader(qdef, where, line, problems, "quiz")
        q = r.get("q") or ""
        a = r.get("a")
        a = "" if a is None else str(a)
        choices = tuple(str(c) for c in (r.get("choices", default=[]) or []))
        if a:
            try:
                parse_answer(a)
            except ValueError as exc:
                problems.add(r.line_of("a"), f"{where}.a", f"the canonical answer does not parse: {exc}")
        out.append(Quiz(q, a, r.get("why", default="") or "", choices))
    return tuple(out)


def _parse_scale(top: _Reader, problems: _Problems, dims: dict[str, DimRule]) -> ScaleSpec | None:
    """`scale: {dims: {N: 4096, ...}, max_bytes: 2147483648}`: every ranged dimension gets a size; derived ones follow."""
    if not top.has("scale"):
        return None
    r = _Reader(top.data["scale"], "scale", top.line_of("scale"), problems, "scale")
    raw = r.get("dims") or {}
    sizes: dict[str, int] = {}
    for k, v in raw.items():
        line = _line_of(raw, k, r.line_of("dims"))
        if k not in dims:
            problems.add(line, f"scale.dims.{k}", "unknown dimension (declare it under dims)")
        elif dims[k].derived:
            problems.add(line, f"scale.dims.{k}", f"derived from {dims[k].expr}; give the dimensions it is made of")
        elif not isinstance(v, int) or isinstance(v, bool) or v < 1:
            problems.add(line, f"scale.dims.{k}", "expected a size >= 1")
        else:
            sizes[k] = v
    for n, rule in dims.items():  # a fixed dimension keeps its size unless given
        if not rule.derived and rule.low == rule.high and n not in raw:
            sizes[n] = int(rule.low or 0)
    missing = [n for n, rule in dims.items() if not rule.derived and n not in sizes and n not in raw]
    if raw and missing:
        problems.add(r.line_of("dims"), "scale.dims", f"give a size for {', '.join(missing)}")
    if not missing and all(k in sizes for k in raw):
        for rule in dims.values():
            if rule.derived:
                try:
                    sizes[rule.name] = _dims.eval_expr(rule.expr or "0", sizes)
                except (KeyError, ValueError, ZeroDivisionError):
                    pass  # the dims problem is reported where the rule is
    max_bytes = r.get("max_bytes")
    if max_bytes is not None and (not isinstance(max_bytes, int) or isinstance(max_bytes, bool) or max_bytes < 1):
        problems.add(r.line_of("max_bytes"), "scale.max_bytes", "a peak in bytes at the scale sizes, an integer >= 1")
        max_bytes = None
    return ScaleSpec(sizes, max_bytes)
