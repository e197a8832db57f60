"""`python -m grader.spec` writes data/drill-spec.schema.json from the one schema;
`python -m grader.spec --check` says whether the committed file is current."""
from __future__ import annotations

import sys

from grader.spec.schema import schema_path, schema_text


def main(argv: list[str] | None = None) -> int:
    """Write the schema (or, with --check, say whether the committed file is current)."""
    args = sys.argv[1:] if argv is None else argv
    path = schema_path()
    if "--check" in args:
        current = path.exists() and path.read_text() == schema_text()
        print(f"{path}: {'current' if current else 'out of date; run python -m grader.spec'}")
        return 0 if current else 1
    path.write_text(schema_text())
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
