"""Build the store an older backscroll wrote (``tests/data/old_store/home``), for the upgrade tests.

Run with an older release's code on ``PYTHONPATH`` (the fixture was built by d6ae553, before
redaction carried a version, colour codes were read through and Doppler tokens were known):

    git worktree add /tmp/old d6ae553
    PYTHONPATH=/tmp/old BACKSCROLL_EMBEDDER=fake python tests/data/old_store/build.py tests/data/old_store/home

It writes two Claude Code sessions holding secrets those rules missed, indexes them with the fake
embedder, then deletes the session files: the agent pruned its logs, the store is the only copy.
Every value is fake; each only has the shape of a real credential.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from backscroll.testing.sessions import ClaudeSession

DOPPLER = "dp.st.prd.Qm7Xk2Lp9Wz4Rt6Vb8Nc3Hd5Jf1Gs0Ka2Ye4Ui6Qx"
GITHUB = "ghp_Zr8Mq3Xv6Lk1Pw9Tb4Nd7Hc2Jf5Gs0Ya3Ue8Ri"
AWS_SECRET = "Tq4Lw8Zr2Xm6Kp0Vb5Nc9Hd3Jf7Gs1Ya4Ue8Ri2"
ESC = "\x1b"


def write_sessions(projects: Path) -> None:
    (ClaudeSession(projects, "/home/dev/payments", "7c0a6b1e-1111-4c1d-9d1e-0a1b2c3d4e5f", "2026-09-02T10:00:00Z", 30)
     .user(f"deploy the payments service; the Doppler service token is {DOPPLER} for the prd config")
     .assistant("I will wire the Doppler service token into the payments deploy job and keep it out of git.")
     .tool("gh auth status -t", "github.com\n  ✓ Logged in to github.com account dev (keyring)\n"
           f"  - Token: {ESC}[32mghp_{ESC}[0m{ESC}[1m{GITHUB[4:]}{ESC}[0m\n")
     .assistant("The gh login works; the deploy job reads its token from Doppler now.")
     .summary(f"Doppler deploy with {DOPPLER}"))
    (ClaudeSession(projects, "/home/dev/payments", "7c0a6b1e-2222-4c1d-9d1e-0a1b2c3d4e5f", "2026-09-03T09:00:00Z", 30)
     .user("why does the S3 upload of the invoice archive fail with SignatureDoesNotMatch?")
     .tool("aws configure list --profile billing",
           f"aws_access_key_id = ****************TQ4L\naws_secret_access_key = {ESC}[33m{AWS_SECRET}{ESC}[0m\n")
     .assistant("The billing profile's secret access key was rotated; the invoice archive upload signs with the old one."))


def main(out: Path) -> None:
    out = out.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        projects = Path(tmp) / "projects"
        write_sessions(projects)
        env = {"BACKSCROLL_HOME": str(out), "HOME": tmp, "BACKSCROLL_EMBEDDER": "fake", "PATH": "/usr/bin:/bin",
               **{k: v for k, v in __import__("os").environ.items() if k in ("PYTHONPATH",)}}
        subprocess.run([sys.executable, "-m", "backscroll", "index", "--source", f"claude:{projects}"], env=env,
                       check=True, cwd=tmp)  # (not the checkout: its backscroll would come first on sys.path)
        shutil.rmtree(projects)  # the agent pruned its logs


if __name__ == "__main__":
    main(Path(sys.argv[1]))
