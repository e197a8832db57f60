"""Quick-fire answers as people say them: a table per answer kind (shape, number, word), right
and wrong. The first clause of an answer counts when what follows offers no other answer, and
`x` separates dimensions where the answer is a shape (grader/judge/answers.py)."""
from __future__ import annotations

import pytest

from grader.judge.answers import answers_match

SHAPES = [
    # right
    ("N x N", "(N, N)", True),
    ("N × N", "(N, N)", True),
    ("NxN", "(N, N)", True),
    ("(N x N)", "(N, N)", True),
    ("B x 1 x 1 x S", "(B, 1, 1, S)", True),
    ("B×1×1×S", "(B, 1, 1, S)", True),
    ("Bx1x1xS", "(B, 1, 1, S)", True),
    ("3x4x5", "(3, 4, 5)", True),
    ("3 x 4 x 5", "(3, 4, 5)", True),
    ("(3, 4, 5)", "(3, 4, 5)", True),
    ("B H T S", "(B, H, T, S)", True),
    ("BxHxTxS", "(B, H, T, S)", True),
    ("B x H x T x S", "(B, H, T, S)", True),
    ("[B, H, T, S]", "(B, H, T, S)", True),
    ("(B, T, 1), because keepdim keeps the axis", "(B, T, 1)", True),
    ("(B, T, 1) since keepdim=True", "(B, T, 1)", True),
    ("(B, T, 1) - the reduced axis stays", "(B, T, 1)", True),
    ("it's (N, N)", "(N, N)", True),
    ("(N, N): they broadcast both ways", "(N, N)", True),
    ("B x d", "(B, d)", True),
    ("(B, d); the mean over T", "(B, d)", True),
    ("T x T", "(T, T)", True),
    ("(B, H, T, dh), then transposed back", "(B, H, T, dh)", True),
    ("N x M x d", "(N, M, d)", True),
    # wrong
    ("N x 1", "(N, N)", False),
    ("N", "(N, N)", False),
    ("(N, N) or (N, 1)", "(N, N)", False),
    ("maybe (N, N), maybe (N, 1)", "(N, N)", False),
    ("(N, 1), not (N, N)", "(N, N)", False),
    ("B x T x 1 x S", "(B, 1, 1, S)", False),
    ("B x S", "(B, 1, 1, S)", False),
    ("4x3x5", "(3, 4, 5)", False),
    ("(3, 5, 4)", "(3, 4, 5)", False),
    ("B T H S", "(B, H, T, S)", False),
    ("BxTxHxS", "(B, H, T, S)", False),
    ("(B, T), because keepdim", "(B, T, 1)", False),
    ("(B, 1, T) since keepdim=True", "(B, T, 1)", False),
    ("d x B", "(B, d)", False),
    ("error", "(N, N)", False),
    ("(B, H, dh, T), then transposed", "(B, H, T, dh)", False),
    ("N x M", "(N, M, d)", False),
    ("", "(N, N)", False),
    ("(N, N", "(N, N)", False),
]

NUMBERS = [
    # right
    ("40 GB", "40 GB", True),
    ("40GB", "40 GB", True),
    ("forty GB", "40 GB", True),
    ("about 40 GB", "40 GB", True),
    ("roughly 40 GB", "40 GB", True),
    ("~40 GB", "40 GB", True),
    ("40 GB, since 8 x 2048 x 2048 x 4 bytes each", "40 GB", True),
    ("40 GB (float32)", "40 GB", True),
    ("4e10 bytes", "40 GB", True),
    ("40,000,000,000 bytes", "40 GB", True),
    ("40000 MB", "40 GB", True),
    ("64", "64", True),
    ("sixty-four", "64", True),
    ("it's 64", "64", True),
    ("64, d over H", "64", True),
    ("64 because 4096 / 64", "64", True),
    ("4.19 GB", "4.19 GB", True),
    ("4.19GB; that is B*H*T*S*4", "4.19 GB", True),
    ("8.59 GB", "8.59 GB", True),
    ("0 bytes", "0 bytes", True),
    ("0 bytes, a view", "0 bytes", True),
    ("zero bytes", "0 bytes", True),
    ("256x", "256x", True),
    ("256 times", "256x", True),
    ("-65504", "-65504", True),
    ("-65504, fp16's lowest", "-65504", True),
    # wrong
    ("4 GB", "40 GB", False),
    ("40 GiB", "40 GB", False),
    ("400 GB", "40 GB", False),
    ("40 GB or 80 GB", "40 GB", False),
    ("either 40 GB or 20 GB", "40 GB", False),
    ("about 4 GB", "40 GB", False),
    ("63", "64", False),
    ("64 or 128", "64", False),
    ("sixty", "64", False),
    ("8 GB", "4.19 GB", False),
    ("4.19 MB", "4.19 GB", False),
    ("1 byte", "0 bytes", False),
    ("none", "0 bytes", False),
    ("128x", "256x", False),
    ("65504", "-65504", False),
    ("-inf", "-65504", False),
    ("", "64", False),
]

WORDS = [
    # right
    ("error", "error", True),
    ("Error!", "error", True),
    ("it raises an error", "error", True),
    ("raises an error, view needs contiguous", "error", True),
    ("error (not contiguous)", "error", True),
    ("an error: view needs a contiguous tensor", "error", True),
    ("RuntimeError", "error", True),
    ("RuntimeError, the strides don't allow a view", "error", True),
    ("it throws - view on a non-contiguous tensor", "error", True),
    ("error because the shapes don't broadcast", "error", True),
    ("error when T > 1", "error", True),
    ("raises", "error", True),
    ("no", "no", True),
    ("No.", "no", True),
    ("no, it broadcasts silently", "no", True),
    ("nope, it runs", "no", True),
    ("it does not", "no", True),
    ("no (it runs and gives wrong values)", "no", True),
    ("runs", "runs", True),
    ("it runs", "runs", True),
    ("runs, but the values are scrambled", "runs", True),
    ("works fine", "runs", True),
    ("silent", "silent", True),
    ("silently, with wrong values", "silent", True),
    ("take_along_axis", "take_along_axis", True),
    ("np.take_along_axis", "take_along_axis", True),
    ("tril", "tril", True),
    ("torch.tril()", "tril", True),
    ("NaN", "nan", True),
    ("nans, in the fully masked rows", "nan", True),
    # wrong
    ("no error", "error", False),
    ("not an error, it runs", "error", False),
    ("it doesn't raise", "error", False),
    ("it fails silently", "error", False),
    ("error or it runs", "error", False),
    ("maybe an error", "error", False),
    ("runs", "error", False),
    ("yes", "no", False),
    ("yes, it raises", "no", False),
    ("no or yes", "no", False),
    ("error", "runs", False),
    ("it runs? no, error", "runs", False),
    ("loud", "silent", False),
    ("gather", "take_along_axis", False),
    ("triu", "tril", False),
    ("inf", "nan", False),
    ("", "error", False),
]


@pytest.mark.parametrize(("given", "canonical", "right"), SHAPES)
def test_spoken_shapes(given: str, canonical: str, right: bool) -> None:
    assert answers_match(given, canonical) is right


@pytest.mark.parametrize(("given", "canonical", "right"), NUMBERS)
def test_spoken_numbers(given: str, canonical: str, right: bool) -> None:
    assert answers_match(given, canonical) is right


@pytest.mark.parametrize(("given", "canonical", "right"), WORDS)
def test_spoken_words(given: str, canonical: str, right: bool) -> None:
    assert answers_match(given, canonical) is right


def test_each_table_has_at_least_forty_answers_right_and_wrong() -> None:
    for table in (SHAPES, NUMBERS, WORDS):
        assert len(table) >= 40
        assert {right for _, _, right in table} == {True, False}
