"""How the corpus scripts read public repositories: from local bare git mirrors (``DIR/<owner>+<name>/repo``), never
the network, through one ``git cat-file --batch`` process a mirror."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any


def corpus_arguments(doc: str | None, out_help: str) -> argparse.ArgumentParser:
    """A corpus script's command line: the output directory, ``--mirrors`` and ``--force``."""
    ap = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    ap.add_argument("out", type=Path, help=out_help)
    ap.add_argument("--mirrors", type=Path, default=Path(os.environ.get("BACKSCROLL_MIRRORS", "/work/.mirror")),
                    help="directory of bare git mirrors, <owner>+<name>/repo (default: $BACKSCROLL_MIRRORS "
                         "or /work/.mirror)")
    ap.add_argument("--force", action="store_true", help="replace a corpus already in OUT")
    return ap


def built(prog: str, build: Callable[[], dict]) -> dict | None:
    """``build()``'s report, or None once a missing mirror, commit or blob has been said on stderr."""
    try:
        return build()
    except CorpusError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return None


class CorpusError(Exception):
    """A mirror, commit or blob is missing or not the pinned one, or the output directory is in the way."""


class Mirror:
    """A bare git mirror of ``repo``; with ``commit``, that commit's tree is what ``ls``, ``read`` and ``json`` see."""

    def __init__(self, mirrors: Path, repo: str, commit: str | None = None):
        self.repo = repo
        self.commit = commit
        self.git_dir = mirrors / repo.replace("/", "+") / "repo"
        if not self.git_dir.is_dir():
            raise CorpusError(f"no mirror of {repo}: expected a bare git directory at {self.git_dir} "
                              f"(git clone --bare https://github.com/{repo} {self.git_dir})")
        if commit is not None and subprocess.run(["git", "--git-dir", str(self.git_dir), "cat-file", "-e",
                                                  f"{commit}^{{commit}}"], capture_output=True).returncode != 0:
            raise CorpusError(f"the mirror of {repo} at {self.git_dir} lacks commit {commit} (fetch its full history)")
        self._proc: subprocess.Popen[bytes] | None = None

    def _ask(self, spec: str) -> tuple[str, str, bytes | None]:
        """``(object id, kind, bytes)`` of what ``spec`` (``commit:path``) names; ``("", "missing", None)``."""
        if self._proc is None:
            self._proc = subprocess.Popen(["git", "--git-dir", str(self.git_dir), "cat-file", "--batch"],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        stdin: IO[bytes] | None = self._proc.stdin
        stdout: IO[bytes] | None = self._proc.stdout
        assert stdin is not None and stdout is not None
        stdin.write(spec.encode() + b"\n")
        stdin.flush()
        header = stdout.readline().split()
        if len(header) != 3:
            return "", "missing", None
        data = stdout.read(int(header[2]))
        stdout.read(1)
        return header[0].decode(), header[1].decode(), data

    def ls(self, prefix: str) -> list[str]:
        """The files under ``prefix`` in the commit's tree, sorted."""
        out = subprocess.run(["git", "--git-dir", str(self.git_dir), "ls-tree", "-r", "--name-only", "-z",
                              str(self.commit), "--", prefix], capture_output=True, check=True).stdout
        return sorted(p.decode() for p in out.split(b"\0") if p)

    def read(self, path: str) -> bytes | None:
        """The blob at ``path`` in the commit's tree, or None when the mirror does not hold it."""
        _oid, kind, data = self._ask(f"{self.commit}:{path}")
        return data if kind == "blob" else None

    def json(self, path: str) -> Any:
        """The JSON at ``path``, or None when it is missing or not JSON."""
        blob = self.read(path)
        if blob is None:
            return None
        try:
            return json.loads(blob)
        except ValueError:
            return None

    def pinned(self, commit: str, path: str, blob: str) -> bytes:
        """The file at ``commit:path``, checked to be the pinned ``blob``."""
        oid, kind, data = self._ask(f"{commit}:{path}")
        if data is None or kind != "blob":
            raise CorpusError(f"the mirror of {self.repo} at {self.git_dir} lacks {commit}:{path} "
                              "(fetch its full history)")
        if oid != blob:
            raise CorpusError(f"{self.repo}@{commit}:{path} is blob {oid}, not the pinned {blob}")
        return data

    def close(self) -> None:
        if self._proc is not None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            self._proc.wait()
            self._proc = None
