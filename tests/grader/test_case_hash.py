"""grader.cases.case_hash: the same cases give the same hash, other cases another; values a
checker judges (a random initialisation) and last-bit float differences do not count."""
from __future__ import annotations

import hashlib

import pytest
import torch

from grader.cases import case_hash as ch
from grader.cases.prepare import prepare
from tests.builtin import builtin_catalogue


@pytest.fixture(scope="module")
def specs():
    return builtin_catalogue().specs


def test_same_seed_same_hash_other_seed_other_hash(specs):
    first = ch.case_hash(prepare(specs["masked-mean"], 7))
    assert len(first) == 16 and ch.case_hash(prepare(specs["masked-mean"], 7)) == first  # prepared afresh
    assert ch.case_hash(prepare(specs["masked-mean"], 8)) != first
    assert ch.case_hash(prepare(specs["gqa"], 7)) != first


def test_a_checker_judged_result_does_not_change_the_hash(specs):
    """lora_init's oracle returns a fresh random initialisation on every call."""
    a, b = prepare(specs["lora"], 3), prepare(specs["lora"], 3)
    inits = [(x, y) for x, y in zip(a.calls, b.calls) if x.function.checker]
    assert inits and any(not torch.equal(x.expected[0], y.expected[0]) for x, y in inits)
    assert ch.case_hash(a) == ch.case_hash(b)


def _digest(value) -> str:
    h = hashlib.sha256()
    ch._feed(h, value)
    return h.hexdigest()


def test_floats_count_to_12_bits_and_every_real_change_counts():
    x = torch.linspace(1.0, 2.0, 101, dtype=torch.float64)
    ulp = torch.nextafter(x, torch.full_like(x, 3.0))  # one last-bit step up
    assert _digest(x) == _digest(ulp)
    assert _digest(x) != _digest(x * 1.001) and _digest(x) != _digest(x.float())  # dtype counts too
    assert _digest(x) != _digest(x.reshape(101, 1))
    specials = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0])
    assert _digest(specials) == _digest(specials.clone()) != _digest(torch.zeros(4))
    assert _digest(torch.tensor([1, 2, 3])) != _digest(torch.tensor([1, 2, 4]))
    assert _digest((1, 2.0, "a", None)) == _digest((1, 2.0 + 1e-15, "a", None)) != _digest((1, 2.5, "a", None))
