"""Quick-fire answers: parse and normalise, so equivalent spellings match.

`(B,H,T,S)`, `( B, H, T, S )` and `B H T S` are one shape; `40 GB`, `40GB`,
`forty GB` and `4e10 bytes` are one number (decimal units, 1% tolerance;
English number words up to the millions: `four`, `twenty-four`, `one
hundred and twenty`); `error`,
`Error!` and ` error ` are one word, and a simple phrasing of a one-word answer
says it (`it raises an error` is `error`; `no error` is not). Torch-free.

People say more than the answer: where the canonical answer is a shape, `N x N`,
`B × 1 × 1 × S` and `3x4x5` are shapes too (`x` between dimensions); and an answer
whose first clause is right is right (`raises an error, view needs contiguous`,
`error (not contiguous)`, `(B, T, 1) because of keepdim`), unless what follows
offers another answer (`(N, N) or (N, 1)`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import cast

_UNITS = {
    "": 1.0, "b": 1.0, "byte": 1.0, "bytes": 1.0,
    "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
    "kib": 2.0**10, "mib": 2.0**20, "gib": 2.0**30, "tib": 2.0**40,
    "k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9,
    "x": 1.0, "times": 1.0, "%": 0.01, "percent": 0.01,
}
_UNIT_CLASS = {
    **{u: "bytes" for u in ("b", "byte", "bytes", "kb", "mb", "gb", "tb", "kib", "mib", "gib", "tib")},
    "x": "ratio", "times": "ratio", "%": "ratio", "percent": "ratio",
}
_NUMBER = re.compile(r"^([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?)\s*([a-z%]*)$")
_SHAPE_TOKEN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:[+\-*/][A-Za-z0-9_]+)*$|^\d+$")


@dataclass(frozen=True)
class Answer:
    kind: str  # "shape" | "number" | "word"
    value: object
    unit_class: str = ""


_SMALL = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen".split())}
_TENS = {w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if i >= 2}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}


def number_words(text: str) -> int | None:
    """`four` -> 4, `twenty-four` -> 24, `one hundred and five` -> 105; None when `text`
    is not made of English number words only."""
    words = [w for w in re.split(r"[\s-]+", text.lower().strip()) if w and w != "and"]
    if not words or not all(w in _SMALL or w in _TENS or w in _SCALES for w in words) or words[0] in _SCALES:
        return None
    total = current = 0
    for w in words:
        if w in _SMALL:
            current += _SMALL[w]
        elif w in _TENS:
            current += _TENS[w]
        elif w == "hundred":
            current *= 100
        else:
            total += current * _SCALES[w]
            current = 0
    return total + current


def _spelled_number(raw: str) -> str:
    """`four GB` -> `4 GB`: number words (with an optional unit after them) as digits."""
    low = raw.lower().strip()
    n = number_words(low)
    if n is not None:
        return str(n)
    head, _, unit = low.rpartition(" ")
    if head and unit in _UNITS and unit not in _SCALES:
        n = number_words(head)
        if n is not None:
            return f"{n} {unit}"
    return raw


def parse_answer(text: str) -> Answer:
    """Normalise one answer. Raises ValueError when it is empty or unreadable."""
    raw = str(text).strip()
    if not raw:
        raise ValueError("the answer is empty")
    raw = _spelled_number(raw)
    low = re.sub(r"(?<=\d),(?=\d{3}\b)", "", raw.lower()).strip()
    m = _NUMBER.fullmatch(low) if _looks_numeric(raw) else None
    if m and m.group(2) in _UNITS:
        value = float(m.group(1)) * _UNITS[m.group(2)]
        return Answer("number", value, _UNIT_CLASS.get(m.group(2), ""))
    if raw.startswith("(") or raw.startswith("[") or "," in raw or _is_bare_shape(raw):
        inner = raw.strip()
        if inner[:1] in "([" and inner[-1:] in ")]":
            inner = inner[1:-1]
        tokens = [t for t in re.split(r"[,\s]+", inner) if t]
        tokens = [t.replace(" ", "") for t in tokens]
        for t in tokens:
            if not _SHAPE_TOKEN.fullmatch(t):
                raise ValueError(f"{t!r} is not a dimension name or size")
        return Answer("shape", tuple(t.lower() for t in tokens))
    word = re.sub(r"[\s]+", " ", raw.lower()).strip(" .!?;:'\"`")
    if not word:
        raise ValueError("the answer is empty")
    return Answer("word", word)


def _looks_numeric(raw: str) -> bool:
    return bool(re.match(r"^\s*[-+]?(\d|\.\d)", raw)) and not raw.strip().startswith("(")


def _is_bare_shape(raw: str) -> bool:
    tokens = raw.split()
    return len(tokens) >= 2 and all(_SHAPE_TOKEN.fullmatch(t) for t in tokens) and any(
        len(t) <= 3 or t.isdigit() for t in tokens
    ) and all(len(t) <= 6 for t in tokens)


def answers_match(given: str, canonical: str) -> bool:
    """True when `given`, or the first clause of it, says the same thing as `canonical`."""
    given = _LEAD.sub("", str(given), count=1)
    if _whole_match(given, canonical):
        return True
    try:
        shape_answer = parse_answer(canonical).kind == "shape"
    except ValueError:
        return False
    if shape_answer:
        spoken = _times_as_commas(given)
        if spoken != given and _whole_match(spoken, canonical):
            return True
    clause = first_clause(given, shape_answer)
    if clause is None or clause == given.strip():
        return False
    return answers_match(clause, canonical)


# Words before an answer that change nothing: "about 40 GB", "it's (N, N)".
_LEAD = re.compile(r"^\s*(?:(?:it'?s|it is|that'?s|that is|the answer is|about|roughly|around|approximately|approx\.?|"
                   r"~|\u2248)\s*)+", re.IGNORECASE)


# What ends the first clause of a spoken answer: a comma or semicolon followed by a space, a dash
# between spaces, a colon, an opening parenthesis after a word, or a word that starts a reason.
_CLAUSE_END = re.compile(r",\s|;|:\s|\s[-\u2013\u2014]+\s|(?<=[\w!.])\s*\(|\s(?:because|since|as|so|due|when|if|but)\b",
                         re.IGNORECASE)
_ALTERNATIVE = re.compile(r"\b(?:or|maybe|perhaps|either)\b", re.IGNORECASE)


def first_clause(given: str, shape_answer: bool = False) -> str | None:
    """The answer's first clause (None when it has no other), unless the rest offers another answer.

    A shape answer's first clause is its leading bracketed group when it has one, so the commas
    inside `(B, T, 1), because ...` stay part of it."""
    text = given.strip()
    if shape_answer and text[:1] in ("(", "["):
        close = ")" if text[0] == "(" else "]"
        end = text.find(close)
        if end < 0:
            return None
        head, rest = text[:end + 1], text[end + 1:]
    else:
        m = _CLAUSE_END.search(text)
        if not m or m.start() == 0:
            return None
        head, rest = text[:m.start()], text[m.start():]
    if not rest.strip(" .!") or _ALTERNATIVE.search(rest):
        return None
    return head.strip()


def _times_as_commas(given: str) -> str:
    """`N x N` -> `N, N`; `3x4x5` -> `3, 4, 5`; `BxT` stays (a name may hold an x), unless
    every piece between the x's is a digit run or an upper-case dimension name."""
    text = given.strip()
    spaced = re.sub(r"\s+[x\u00d7]\s+|\u00d7", ", ", text)
    if spaced != text:
        return spaced
    pieces = re.split(r"x", text.strip("()[] "))
    if len(pieces) >= 2 and all(re.fullmatch(r"\d+|[A-Z][A-Z0-9_]*", p) for p in pieces):
        return ", ".join(pieces)
    return given


def _whole_match(given: str, canonical: str) -> bool:
    try:
        a, b = parse_answer(given), parse_answer(canonical)
    except ValueError:
        return False
    if a.kind == "number" and b.kind == "number":
        if a.unit_class and b.unit_class and a.unit_class != b.unit_class:
            return False
        given_value, canonical_value = cast(float, a.value), cast(float, b.value)  # a number's value is a float
        scale = max(abs(float(canonical_value)), 1e-12)
        return abs(float(given_value) - float(canonical_value)) <= 0.01 * scale
    mixed = a.kind == "shape" and b.kind == "word" or a.kind == "word" and b.kind == "shape"
    if mixed and _squash(given) == _squash(canonical):
        return True
    if a.kind == b.kind and a.value == b.value:
        return True
    return b.kind == "word" and a.kind in ("word", "shape") and same_meaning(given, str(b.value))


# Simple phrasings of a one-word answer: "it raises an error" says "error", "no, it
# does not" says "no". Only filler words may surround the answer (or a synonym of it);
# a negation the answer lacks ("no error", "it does not raise") never matches, and
# any other word ("it fails silently" for "error") makes it a different answer.
_FILLER = frozenset(
    "it its this that the a an you we they there i get gets got would will should be is are was were "
    "just simply probably think result answer then gives give returns return becomes".split())
_NEGATIONS = frozenset("no not never without none nothing nope nah".split())
_NO = frozenset({"no", "nope", "nah"})
_SYNONYMS = {
    "error": frozenset("error errors raise raises raised throw throws thrown exception exceptions "
                       "runtimeerror valueerror indexerror typeerror".split()),
    "runs": frozenset("run runs works work fine succeeds".split()),
    "silent": frozenset("silent silently quietly".split()),
    "nan": frozenset({"nan", "nans"}),
}


def _words(text: str) -> list[str]:
    text = re.sub(r"n't\b", " not", text.lower().replace("’", "'"))
    out = []
    for w in re.findall(r"[a-z0-9_.()'-]+", text):
        w = w.strip(".'-")
        w = re.sub(r"^(?:torch|tensor|np|numpy)\.", "", w)
        w = w[:-2] if w.endswith("()") else w
        if w in ("it's", "that's", "there's"):
            w = w.split("'")[0]
        if w:
            out.append(w)
    return out


def same_meaning(given: str, canonical: str) -> bool:
    """Whether `given` is a simple phrasing of the one-word answer `canonical` (see above)."""
    answer = _words(canonical)
    words = _words(given)
    if len(answer) != 1 or not words:
        return False
    answer_word = answer[0]
    if answer_word in _NO:
        return words[0] in _NO and "yes" not in words or (
            "not" in words and all(w in _FILLER or w in ("not", "does", "do", "did") for w in words))
    if any(w in _NEGATIONS for w in words):
        return False
    same = _SYNONYMS.get(answer_word, frozenset()) | {answer_word}
    content = [w for w in words if w not in _FILLER]
    return bool(content) and all(w in same for w in content)


def _squash(text: str) -> str:
    return re.sub(r"[\s(),\[\]]+", "", text.lower())
