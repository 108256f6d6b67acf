#!/usr/bin/env python3
"""The everyday words of coding work, from public data: ``backscroll/retrieval/everyday.tsv``.

    python bench/everyday_words.py --homes HOME [...] --commits GITDIR [...] [--out backscroll/retrieval/everyday.tsv]

Two kinds of public data say which words every coding project uses, whatever it is about:

- agent sessions: each HOME is an indexed history of many repositories (``bench/agent_corpus.py``'s, indexed by
  ``bench/agent_search.py --home``); a word is everyday in a repository when at least ``SESSIONS`` of its
  sessions' prose says it ("test", "error", "return");
- commit messages: each GITDIR is a public repository's git directory (``fetch``'s snapshots); a word is
  everyday in it when at least ``COMMITS`` of its commit messages say it ("fix", "changelog", "bump", "readme").

A word's weight is the share of repositories (of either kind, the larger) in which it is everyday, and only words
of weight ``FLOOR`` or more are written. A word that one repository says all the time ("migration" in Django's
sessions, "regex" in ripgrep's commits) is a topic there, not everyday. The relevance judgement
(``retrieval/relevance.py``) lets everyday words count for little.
"""

from __future__ import annotations

import argparse
import sqlite3
import subprocess
from collections import Counter, defaultdict
from pathlib import Path

SESSIONS = 0.1  # the share of a repository's sessions that must say a word
COMMITS = 0.005  # the share of a repository's commit messages that must say it
FLOOR = 0.5  # the share of repositories that must say it often, for the list
MIN_DOCUMENTS = 10  # a repository with fewer sessions (or commits) says too little to count


def _words(text: str) -> set[str]:
    """The stems of a text's words ("renamed", "renaming": "renam"), as the judgement looks them up."""
    from backscroll.indexes.lexical_schema import analyze, stem
    from backscroll.retrieval.query import STOPWORDS

    return {stem(w) for w in analyze(text) if w not in STOPWORDS and w.isalpha() and len(w) > 2}


def sessions_said(home: Path) -> dict[str, list[set[str]]]:
    """Each repository's sessions, as the words each one's prose says."""
    said: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    conn = sqlite3.connect(f"file:{home / 'backscroll.db'}?mode=ro", uri=True)
    for project, session, text in conn.execute(
            "SELECT project, session_id, substr(text, 1, 4000) FROM records WHERE content_type = 'text' "
            "AND is_echo = 0"):
        said[f"{home.name}/{project}"][session] |= _words(text)
    conn.close()
    return {p: list(s.values()) for p, s in said.items()}


def commits_said(git_dir: Path) -> list[set[str]]:
    """A repository's commit messages, as the words each one says (merges left out)."""
    log = subprocess.run(["git", "--git-dir", str(git_dir), "log", "--no-merges", "--format=%B%x00"],
                         capture_output=True, text=True, check=True, errors="replace").stdout
    return [_words(message) for message in log.split("\0") if message.strip()]


def everyday(groups: list[list[set[str]]], share: float) -> dict[str, float]:
    """For each word, the share of ``groups`` (repositories, each a list of documents' words) in which at least
    ``share`` of the documents say it."""
    groups = [g for g in groups if len(g) >= MIN_DOCUMENTS]
    often: Counter[str] = Counter()
    for docs in groups:
        counts = Counter(w for words in docs for w in words)
        often.update(w for w, n in counts.items() if n >= share * len(docs))
    return {w: n / len(groups) for w, n in often.items()} if groups else {}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--homes", type=Path, nargs="*", default=[])
    ap.add_argument("--commits", type=Path, nargs="*", default=[])
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent.parent / "backscroll" / "retrieval"
                    / "everyday.tsv")
    args = ap.parse_args()
    projects = [docs for home in args.homes for docs in sessions_said(home).values()]
    repos = [commits_said(g) for g in args.commits]
    by_sessions, by_commits = everyday(projects, SESSIONS), everyday(repos, COMMITS)
    weights = {w: max(by_sessions.get(w, 0.0), by_commits.get(w, 0.0)) for w in {*by_sessions, *by_commits}}
    weights = {w: g for w, g in weights.items() if g >= FLOOR}
    used_projects = sum(1 for p in projects if len(p) >= MIN_DOCUMENTS)
    used_repos = sum(1 for r in repos if len(r) >= MIN_DOCUMENTS)
    lines = [f"# everyday words of coding work: bench/everyday_words.py over the sessions of {used_projects} "
             f"repositories and the commit messages of {used_repos} others; word, share of repositories that "
             "say it often (words as their English stems)",
             f"# commit messages of: {' '.join(g.parent.name.replace('+', '/') for g in args.commits)}"]
    lines += [f"{w}\t{g:.2f}" for w, g in sorted(weights.items(), key=lambda kv: (-kv[1], kv[0]))]
    args.out.write_text("\n".join(lines) + "\n")
    print(f"{len(weights)} words ({len(by_sessions)} by sessions, {len(by_commits)} by commits) -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
