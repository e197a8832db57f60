"""The spec's schema, written once as data: for each part of a spec, the keys it
may hold, what kind of value each takes, and whether it is required.

The parser reads it (unknown keys, missing fields and wrong kinds are found
from these tables), and `json_schema()` turns the same tables into the JSON
Schema published for editors (`data/drill-spec.schema.json`, written by
`python -m grader.spec`). Rules a table cannot say (a size range is
two integers, an expression uses declared dimensions, a name exists in the
reference file) stay in the parser.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.spec.records import (
    FLOAT_DTYPES,
    MASK_DTYPES,
    PY_TYPES,
    TENSOR_DTYPES,
    TOPICS,
)

# What a value may be: a Python type, a tuple of them, or None for anything.
Kind = Any


@dataclass(frozen=True)
class Field:
    kind: Kind
    required: bool = False
    doc: str = ""
    of: str | None = None  # the section its entries follow
    container: str | None = None  # "map": {name: entry}; "list": [entry]; "one-or-list": entry or [entry]
    enum: tuple[str, ...] = ()
    json: dict[str, Any] | None = None  # more JSON Schema for editors (items, values); the parser checks these itself


F = Field
_SIZE = {"type": "integer", "minimum": 0}
_RANGE = {"type": "array", "items": _SIZE, "minItems": 2, "maxItems": 2}
_TEXTS = {"items": {"type": "string", "minLength": 1}}
_SHAPE = {"items": {"type": ["string", "integer"]}}
SECTIONS: dict[str, dict[str, Field]] = {
    "top": {
        "id": F(str, True, "lower-case words joined by '-', the file's name"),
        "number": F(int, doc="the drill's place in `drill list` (0 to 9999)"),
        "title": F(str, True, "one line"),
        "topic": F(str, True, "the drill's topic", enum=TOPICS),
        "prompt": F(str, True, "the task as the person reads it"),
        "dims": F(dict, doc="named dimensions: [low, high], a fixed size, or an expression like 'H * dh'",
                  json={"additionalProperties": {"anyOf": [_RANGE, _SIZE, {"type": "string"}]}}),
        "functions": F(dict, True, "the functions to write, by name", of="function", container="map"),
        "cases": F(list, True, "the cases every solution is graded on", of="case", container="list"),
        "tolerance": F(dict, doc="per floating dtype: atol and rtol", of="tolerance", container="map"),
        "invariants": F(list, doc="properties checked on every output", of="invariant", container="list"),
        "banned": F(list, doc="dotted names a solution may not call", json=_TEXTS),
        "traps": F(list, True, "wrong solutions the grader must reject, with their messages", of="trap", container="list"),
        "quiz": F(list, True, "quick-fire questions (at least two)", of="quiz", container="list"),
        "hints": F(list, True, "hints, shown one at a time", json=_TEXTS),
        "target_seconds": F(int, True, "the time to aim for, in seconds"),
        "seed_trap": F(str, doc="the trap a first, careless solution tends to fall into"),
        "solution_notes": F(str, doc="shown after a pass"),
        "example": F(dict, doc="example sizes for `drill show`", json={"additionalProperties": _SIZE}),
        "timeout": F(float, doc="seconds a case may run (above 0, at most 300)"),
        "allowed_imports": F(list, doc="modules a solution may import besides torch", json=_TEXTS),
        "must_call": F(dict, doc="dotted name -> exact calls per function call", json={"additionalProperties": _SIZE}),
        "scale": F(dict, doc="production-like sizes for the memory-at-scale check", of="scale"),
        "no_device_case": F(str, doc="why this drill has no device case"),
        "no_gradient_case": F(str, doc="why this drill has no gradient case (its floating outputs are "
                                       "differentiable, but their gradients are not the lesson)"),
        "variants": F(dict, doc="variant axes, by name: conventions real code follows the other way (drills/README.md)",
                      of="axis", container="map"),
    },
    "axis": {
        "default": F(str, True, "the value that is the contract as written"),
        "values": F(dict, True, "the axis's values, by name (at least two)", of="variant_value", container="map"),
    },
    "variant_value": {
        "label": F(str, True, "a few words for headers and reports, e.g. 'True = padding'"),
        "source": F(str, True, "the real code that uses this convention"),
        "prompt": F(list, doc="fragments of the prompt replaced (matched ignoring whitespace)", of="prompt_edit",
                    container="list"),
        "kwargs": F(dict, doc="keyword arguments the reference, the oracle and the traps receive"),
        "gen": F(dict, doc="argument -> generator options merged in (or functions: {fn: {argument: ...}})"),
        "args": F(dict, doc="argument -> {shape, dtype} overrides (or functions: {fn: {argument: ...}})"),
        "returns": F((dict, list), doc="{shape, dtype} override of the return, a list for a tuple "
                                       "(or functions: {fn: ...})"),
        "traps": F(dict, doc="which traps apply and their flipped messages", of="variant_traps"),
        "hints": F(list, doc="fragments of the hints replaced (matched ignoring whitespace)", of="prompt_edit",
                   container="list"),
        "cases": F(dict, doc="case name -> its name under this value, where the contract's name says the other "
                             "convention (fp32-int-mask under an additive mask)",
                   json={"additionalProperties": {"type": "string"}}),
    },
    "prompt_edit": {
        "from": F(str, True, "text of the prompt as written"),
        "to": F(str, True, "what it reads under this value"),
    },
    "variant_traps": {
        "drop": F(list, doc="trap ids that do not apply under this value", json=_TEXTS),
        "add": F(list, doc="trap ids that apply only under the values that add them", json=_TEXTS),
        "messages": F(dict, doc="trap id -> its message under this value",
                      json={"additionalProperties": {"type": "string"}}),
    },
    "scale": {
        "dims": F(dict, True, "a size for every ranged dimension",
                  json={"additionalProperties": {"type": "integer", "minimum": 1}}),
        "max_bytes": F(int, doc="a peak above this many bytes at the scale sizes is `memory` whatever its growth "
                                "(for a drill whose point is an absolute size; growth is judged without it)",
                       json={"type": "integer", "minimum": 1}),
    },
    "function": {
        "args": F(dict, True, "the arguments, in order", of="arg", container="map"),
        "returns": F((dict, list), True, "one return, or a list for a tuple", of="return", container="one-or-list"),
        "raises": F((list, str), doc="built-in exceptions the function must raise on bad input"),
        "oracle": F(str, doc="'reference' (default), 'py:name' (a reference function), or an oracle: a function of "
                               "<id>.oracle.py beside the spec, else a shared one of grader/oracles/"),
        "inputs": F(str, doc="'py:name': builds every argument at once"),
        "checker": F(str, doc="'py:name': replaces the value comparison"),
        "gradient_wrt": F(list, doc="the arguments the gradient case differentiates (default: every float "
                                    "tensor argument)", json={"items": {"type": "string"}}),
        "gradient_where": F(str, doc="'py:name': True where the contract fixes the output; the gradient case "
                                     "pulls back only there (a checker that accepts two forwards)"),
        "exact": F(bool, doc="compare floating outputs exactly"),
    },
    "arg": {
        "shape": F(list, doc="a tensor argument's shape in dimension names, e.g. [B, T, d]", json=_SHAPE),
        "dtype": F(str, doc="a tensor dtype word", enum=TENSOR_DTYPES),
        "type": F(str, doc="a Python argument's type", enum=PY_TYPES),
        "gen": F(str, doc="a built-in generator or 'py:name'"),
        "value": F(None, doc="a literal, a dimension name or an expression"),
        "param": F(str, doc="take the value from the case's params"),
        "default": F(None, doc="the default shown in the signature"),
        "options": F(dict, doc="keyword arguments for the generator"),
    },
    "return": {
        "shape": F(list, doc="a tensor return's shape in dimension names", json=_SHAPE),
        "dtype": F(str, doc="a tensor dtype word", enum=TENSOR_DTYPES),
        "type": F(str, doc="a Python return's type", enum=PY_TYPES),
        "name": F(str, doc="shown in the skeleton"),
    },
    "case": {
        "name": F(str, True, "unique within the drill"),
        "description": F(str),
        "dims": F(dict, doc="sizes: an integer, or the name of another dimension (tied)",
                  json={"additionalProperties": {"anyOf": [_SIZE, {"type": "string"}]}}),
        "dtype": F(str, doc="the floating dtype of the case", enum=FLOAT_DTYPES),
        "mask": F(str, doc="the mask dtype of the case", enum=MASK_DTYPES),
        "params": F(dict, doc="values for 'param' arguments and generator option overrides"),
        "only": F((list, str), doc="the functions this case applies to"),
        "heavy": F(bool, doc="never run traps in-process on this case"),
        "timeout": F(float, doc="seconds this case may run"),
    },
    "tolerance": {
        "atol": F(float, True),
        "rtol": F(float, True),
    },
    "invariant": {
        "kind": F(str, True, "a built-in invariant or 'py:name'"),
        "function": F(str, doc="the function it applies to"),
        "options": F(dict),
    },
    "trap": {
        "id": F(str, True, "lower-case words joined by '-'"),
        "message": F(str, True, "what the person is told"),
        "function": F(str, True, "the wrong function in the reference file"),
        "replaces": F(str, doc="the drill function it stands in for"),
        "why": F(str),
        "memory": F(bool, doc="a memory verdict on a heavy case counts as this trap"),
        "gradient": F(bool, doc="a backward trap: the reference's forward with a classic backward mistake, named "
                                "on the gradient case"),
        "match": F(str, doc="'py:name' replaces the output comparison"),
        "also": F(dict, doc="the same mistake in other drill functions: function -> its trap function in the reference",
                  json={"additionalProperties": {"type": "string"}}),
    },
    "quiz": {
        "q": F(str, True),
        "a": F((str, int, float), True, "the canonical answer"),
        "why": F(str),
        "choices": F(list),
    },
}
del F


def keys(section: str) -> set[str]:
    """The keys a section may hold."""
    return set(SECTIONS[section])


# -------------------------------------------------------------- JSON Schema

_JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean", list: "array", dict: "object"}
SCHEMA_FILE = "drill-spec.schema.json"


def _types(kind: Kind) -> dict[str, Any]:
    if kind is None:
        return {}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    names = [_JSON_TYPES[k] for k in kinds]
    if "number" in names and "integer" in names:
        names.remove("integer")
    return {"type": names[0] if len(names) == 1 else names}


def _field(f: Field) -> dict[str, Any]:
    out: dict[str, Any] = {"description": f.doc} if f.doc else {}
    ref = {"$ref": f"#/$defs/{f.of}"} if f.of else None
    if f.container == "map" and ref:
        out.update({"type": "object", "additionalProperties": ref})
    elif f.container == "list" and ref:
        out.update({"type": "array", "items": ref})
    elif f.container == "one-or-list" and ref:
        out["anyOf"] = [ref, {"type": "array", "items": ref}]
    elif ref:
        out.update(ref)
    else:
        out.update(_types(f.kind))
    if f.enum:
        out["enum"] = list(f.enum)
    out.update(f.json or {})
    return out


def _section(name: str) -> dict[str, Any]:
    fields = SECTIONS[name]
    out: dict[str, Any] = {"type": "object", "additionalProperties": False,
                           "properties": {k: _field(f) for k, f in fields.items()}}
    required = [k for k, f in fields.items() if f.required]
    if required:
        out["required"] = required
    return out


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a drill spec, built from SECTIONS (the parser checks more)."""
    top = _section("top")
    top["properties"]["tolerance"]["propertyNames"] = {"enum": list(FLOAT_DTYPES)}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://drill.invalid/{SCHEMA_FILE}",
        "title": "drill spec",
        "description": "A drill spec (drills/README.md). Generated by `python -m grader.spec`; do not edit.",
        **top,
        "$defs": {name: _section(name) for name in SECTIONS if name != "top"},
    }


def schema_text() -> str:
    return json.dumps(json_schema(), indent=2, sort_keys=False) + "\n"


def schema_path() -> Path:
    """data/drill-spec.schema.json, beside the other packaged data."""
    return Path(__file__).resolve().parents[2] / "data" / SCHEMA_FILE
