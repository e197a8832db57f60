"""The grading engine: specs, cases, the sandbox, comparison. No UI, no database.

Importing this package (and grader.spec, grader.judge.answers, grader.dims) does not
import torch; the modules that grade do.
"""
from __future__ import annotations
