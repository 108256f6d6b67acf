"""The install the README gives for daily use puts a working ``backscroll`` on PATH (pipx and uv tool do what
this does: the package in an environment of its own, its console script in that environment's ``bin``)."""

import os
import subprocess
import sysconfig
import venv

import pytest
from helpers import TESTS


@pytest.mark.slow  # builds the package (setuptools from the package index the machine is configured with)
def test_an_install_puts_a_working_backscroll_on_path(tmp_path):
    ours = os.path.join(sysconfig.get_path("scripts"), "backscroll")
    env_dir = tmp_path / "tool"
    venv.create(env_dir, with_pip=True)  # an environment of its own: this one is never touched
    python = env_dir / "bin" / "python"
    r = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", str(TESTS.parent)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    script = env_dir / "bin" / "backscroll"
    assert script.is_file() and os.access(script, os.X_OK)
    # (the dependencies are this environment's, read through PYTHONPATH: --no-deps installed none there)
    env = {**os.environ, "PATH": f"{env_dir / 'bin'}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": sysconfig.get_path("purelib"), "HOME": str(tmp_path), "BACKSCROLL_HOME": str(tmp_path / "d")}
    out = subprocess.run(["backscroll", "--version"], capture_output=True, text=True, env=env, timeout=120,
                         cwd=tmp_path)
    assert out.returncode == 0 and out.stdout.startswith("backscroll "), out.stderr
    where = subprocess.run(["backscroll", "status", "--json"], capture_output=True, text=True, env=env, timeout=120,
                           cwd=tmp_path)
    assert where.returncode in (0, 3), where.stderr  # (nothing indexed in a fresh home: exit 3, said plainly)
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, timeout=60).stdout.strip()
    for data in ("retrieval/relevance.json", "retrieval/everyday.tsv", "integrations/resume.toml",
                 "integrations/SKILL.md"):
        assert os.path.isfile(os.path.join(site, "backscroll", data)), f"{data} is shipped in the package"
    assert os.path.isfile(ours), "this environment's own backscroll is left as it was"
