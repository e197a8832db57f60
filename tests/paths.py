"""Where the tests find things, wherever a test file sits under tests/."""
from pathlib import Path

TESTS = Path(__file__).resolve().parent  # tests/: conftest.py, fixtures/, hostile/
REPO = TESTS.parent  # the repository root: drills/, pyproject.toml
