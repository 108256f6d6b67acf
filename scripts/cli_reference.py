#!/usr/bin/env python3
"""Write docs/cli.md, the command-line reference, from the commands themselves (``backscroll.cli.reference``).

    .venv/bin/python scripts/cli_reference.py
"""

from pathlib import Path

from backscroll.cli.reference import reference

if __name__ == "__main__":
    out = Path(__file__).resolve().parent.parent / "docs" / "cli.md"
    out.write_text(reference())
    print(f"wrote {out}")
