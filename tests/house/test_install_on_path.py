"""The install the README gives for daily use puts a working ``backscroll`` on PATH (pipx and uv tool do what
pip does here: a console script in an environment's ``bin``)."""

import os
import subprocess
import sys
import sysconfig

import pytest
from helpers import TESTS


@pytest.mark.slow  # builds the package (setuptools from the package index the machine is configured with)
def test_an_install_puts_a_working_backscroll_on_path(tmp_path):
    prefix = tmp_path / "tool"
    r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--prefix", str(prefix),
                        str(TESTS.parent)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    script = prefix / "bin" / "backscroll"
    assert script.is_file() and os.access(script, os.X_OK)
    site = sysconfig.get_path("purelib", vars={"base": str(prefix), "platbase": str(prefix)})
    deps = sysconfig.get_path("purelib")  # (this environment's dependencies: --no-deps installed none)
    env = {**os.environ, "PATH": f"{prefix / 'bin'}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": os.pathsep.join((site, deps)), "HOME": str(tmp_path), "BACKSCROLL_HOME": str(tmp_path / "d")}
    out = subprocess.run(["backscroll", "--version"], capture_output=True, text=True, env=env, timeout=120,
                         cwd=tmp_path)
    assert out.returncode == 0 and out.stdout.startswith("backscroll "), out.stderr
    where = subprocess.run(["backscroll", "status", "--json"], capture_output=True, text=True, env=env, timeout=120,
                           cwd=tmp_path)
    assert where.returncode in (0, 3), where.stderr  # (nothing indexed in a fresh home: exit 3, said plainly)
    installed = prefix / os.path.relpath(site, prefix) / "backscroll"
    for data in ("retrieval/relevance.json", "retrieval/everyday.tsv", "integrations/resume.toml",
                 "integrations/SKILL.md"):
        assert (installed / data).is_file(), f"{data} is shipped in the package"
    shebang = script.read_text().splitlines()[0]
    assert shebang.startswith("#!") and "python" in shebang
