"""Small helpers for tests: reading the store (real SQLite, no mocks), running the CLI in a child
process (piped or on a pseudo-terminal), and counting the kinds of records a reader emits."""

import contextlib
import os
import pty
import sqlite3
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

TESTS = Path(__file__).resolve().parent  # the tests' root: data/, golden/ and the shared helpers
REAL = TESTS / "data" / "real"  # real session files other projects publish (see ORIGIN.md)


def rows(home, sql="SELECT * FROM records ORDER BY id", params=()):
    conn = sqlite3.connect(home.data / "backscroll.db")
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute(sql, params)]
    finally:
        conn.close()


def unflagged_as_by_rules(home, version: int) -> None:
    """The store as older echo rules (``version``) left it, flagging nothing: the next sync classifies it again."""
    conn = sqlite3.connect(home.data / "backscroll.db")
    try:
        conn.execute("UPDATE records SET is_echo = 0")
        conn.execute("UPDATE meta SET value = ? WHERE key = 'classifier_version'", (str(version),))
        conn.commit()
    finally:
        conn.close()


def texts(home, **where):
    clause = " AND ".join(f"{k} = ?" for k in where) or "1"
    sql = f"SELECT text FROM records WHERE {clause} ORDER BY id"
    return [r["text"] for r in rows(home, sql, tuple(where.values()))]


def in_zone(name: str):
    """A fixture that runs its test in the time zone ``name`` ($TZ, read again by ``time.tzset``), restored after."""
    import time

    import pytest

    @pytest.fixture
    def zone(monkeypatch):
        monkeypatch.setenv("TZ", name)
        time.tzset()
        yield
        monkeypatch.undo()
        time.tzset()

    return zone


def index_aider_repo(home, index, repo: str) -> Path:
    """``REAL/aider/<repo>``'s files in a repository under an Aider root of ``home``, indexed without vectors; the
    repository's folder."""
    import shutil

    code = home.home / "code" / repo
    shutil.copytree(REAL / "aider" / repo, code)
    home.data.mkdir(parents=True, exist_ok=True)
    (home.data / "config.toml").write_text(f'[roots]\naider = ["{code.parent}"]\n')
    index(embed=False)
    return code


def cli_env(home, **extra) -> dict:
    """The environment of a CLI child process on ``home``: this one's, without $BACKSCROLL_* nor the variables an
    agent's shell sets (a suite run by an agent tests a person's terminal too), offline, with the fake embedder."""
    from backscroll.cli.common import AGENT_SHELL_VARS

    env = {k: v for k, v in os.environ.items() if not k.startswith("BACKSCROLL_") and k not in AGENT_SHELL_VARS}
    return {**env, "HOME": str(home.home), "BACKSCROLL_HOME": str(home.data), "BACKSCROLL_EMBEDDER": "fake",
            "HF_HUB_OFFLINE": "1", **extra}


def run_cli(home, *args, env=None, **kw) -> subprocess.CompletedProcess:
    # The timeout only turns a hang into a failure; nothing here measures time.
    return subprocess.run([sys.executable, "-m", "backscroll", *map(str, args)], env=env or cli_env(home),
                          capture_output=True, text=True, timeout=120, **kw)


def run_tty(home, *args, columns=80, lines=200, pager="cat", env=None) -> tuple[int, str]:
    """Run the CLI on a pseudo-terminal (stdin, stdout and stderr); returns (status, everything it printed)."""
    env = {**(env or cli_env(home)), "COLUMNS": str(columns), "LINES": str(lines), "TERM": "xterm", "PAGER": pager}
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execve(sys.executable, [sys.executable, "-m", "backscroll", *map(str, args)], env)
    chunks = []
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")


def kinds(records) -> Counter:
    """What a reader emitted, counted the way a careful reader of the file counts: user words, answers,
    reasoning, summaries, tool calls and tool outputs."""
    out: Counter[str] = Counter()
    for r in records:
        if r.content_type in ("reasoning", "summary"):
            out[r.content_type] += 1
        elif r.role == "user":
            out["user"] += 1
        elif r.role == "assistant":
            out["answer"] += 1
        elif r.tool_name is not None:
            out["call"] += 1
        else:
            out["output"] += 1
    return out


def webhook_session(session_builder):
    """A session whose commit listing answers a question asked in the words of the git log call that printed it."""
    s = session_builder.claude()
    s.user("the stripe webhook signature check fails since yesterday's deploy")
    s.assistant("Let me see what changed in the webhook handler.")
    s.tool("git log --oneline -3 -- app/webhooks/stripe_signature.py",
           "a41c9d2 refactor: parse the payload with a pydantic model\n"
           "7be02f1 feat: handle checkout.session.completed\n0c3e9aa chore: bump stripe to 11.2")
    s.assistant("The signature is computed over the parsed payload now, not the raw body.")
    for n in range(4):
        session_builder.claude().user(f"stripe webhook retries are noisy in staging, batch {n}")
    return s


@contextlib.contextmanager
def read_only_filesystem(at: Path, fill: Callable[[Path], None], size: str = "8m") -> Iterator[Path]:
    """A small tmpfs at ``at``, filled by ``fill(at)``, then remounted read-only, and unmounted afterwards (the test is
    skipped where it cannot be mounted: that needs root)."""
    import pytest

    at.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(at)], capture_output=True,
                       text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a small filesystem here (needs root): {r.stderr.strip()}")
    try:
        fill(at)
        r = subprocess.run(["mount", "-o", "remount,ro", str(at)], capture_output=True, text=True)
        if r.returncode != 0:
            pytest.skip(f"cannot remount read-only: {r.stderr.strip()}")
        yield at
    finally:
        subprocess.run(["umount", "-l", str(at)], capture_output=True)


def index_written_by(home, schema: int | None = None) -> None:
    """Mark the word index in use as an earlier version wrote it (``schema``; default: the one before today's)."""
    import json

    from backscroll.indexes.lexical_schema import LEXICAL_SCHEMA

    meta = next(home.data.glob("index/gen-*/backscroll-index.json"))
    meta.write_text(json.dumps({**json.loads(meta.read_text()), "schema": LEXICAL_SCHEMA - 1 if schema is None
                                else schema}))
