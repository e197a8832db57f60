"""The `drill` command line. Each command group lives in its own module and
registers its commands on the shared typer app when imported."""
from __future__ import annotations

from trainer.cli.app import app


def _register() -> None:
    # Importing a module registers its commands on `app`.
    from trainer.cli import catalogue, grading  # noqa: F401

    for name in ("progress", "practice", "reporting", "team", "doctor", "optimize"):
        try:
            __import__(f"trainer.cli.{name}")
        except ModuleNotFoundError as exc:  # a group not written yet
            if exc.name != f"trainer.cli.{name}":
                raise


def main() -> None:
    _register()
    app()
