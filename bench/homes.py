#!/usr/bin/env python3
"""The benchmark histories, built and indexed in one go on a new machine.

    python bench/homes.py [agent] [c3] [aider] [spec] [--root /tmp/bench] [--mirrors DIR]

Nothing of the corpora is committed, and a machine keeps nothing between sessions but the checkout, so every
validation starts here. Each corpus script reads pinned commits from local mirrors (``bench/agent_corpus.py``,
``bench/sweagent_acr_corpus.py``, ``bench/aider_corpus.py``, ``bench/specstory_corpus.py``); when one is missing,
this names the ``fetch`` each takes and builds nothing. Then each corpus is built (kept when its manifest is there)
and indexed, words and meaning, into ``ROOT/<name>-home``, and the lines that run its frozen query sets are printed.
The Aider corpus is always built at ``/tmp/aider-corpus`` and read in UTC (its session ids derive from that path;
its times carry no zone). The eval corpus needs no home: ``backscroll eval`` and ``bench/hooks.py`` index it
themselves.
About ten minutes for the agent corpus on two cores, two for each of the others.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


@dataclass(frozen=True)
class Corpus:
    name: str
    script: str
    repos: tuple[str, ...]
    sources: tuple[str, ...]  # ``agent:sub/path`` inside the built corpus
    sets: tuple[str, ...]  # how its frozen query sets are run, ``{home}`` and ``{corpus}`` filled in
    fixed_out: Path | None = None


def _aider_repos() -> tuple[str, ...]:
    sys.path.insert(0, str(ROOT / "bench"))
    from aider_corpus import SOURCES

    return tuple(dict.fromkeys(repo for repo, *_rest in SOURCES))


def _specstory_repos() -> tuple[str, ...]:
    sys.path.insert(0, str(ROOT / "bench"))
    from specstory_corpus import SOURCES

    return tuple(SOURCES)


CORPORA = {c.name: c for c in (
    Corpus("agent", "agent_corpus.py", ("aorwall/moatless-tools", "gruckion/mini-swe-agent"),
           ("claude:.claude/projects",),
           ("bench/agent_search.py {corpus} --home {home} --half tune",
            "bench/hooks.py --home {home} --prompts bench/queries/hooks-agent-corpus-v1.toml")),
    Corpus("c3", "sweagent_acr_corpus.py", ("nus-apr/auto-code-rover",),
           ("claude:.claude/projects", "codex:.codex/sessions"),
           ("bench/relevance.py dump OUT.jsonl --set c3={home}=bench/queries/sweagent-acr-v1.toml@odd",
            "bench/hooks.py --home {home} --prompts bench/queries/hooks-c3-v1.toml")),
    Corpus("aider", "aider_corpus.py", (), ("aider:.",),
           ("bench/relevance.py dump OUT.jsonl --set aider={home}=bench/queries/aider-real-v1.toml@odd",
            "bench/hooks.py --home {home} --prompts bench/queries/hooks-aider-v1.toml"),
           fixed_out=Path("/tmp/aider-corpus")),
    Corpus("spec", "specstory_corpus.py", (), ("claude:.claude/projects",), ()),
)}


def missing_mirrors(corpus: Corpus, mirrors: Path) -> list[str]:
    repos = corpus.repos or (_specstory_repos() if corpus.name == "spec" else _aider_repos())
    return [r for r in repos if not (mirrors / r.replace("/", "+") / "repo").is_dir()]


def build(corpus: Corpus, root: Path, mirrors: Path) -> Path:
    out = corpus.fixed_out or root / f"{corpus.name}-corpus"
    if (out / "manifest.json").is_file():
        print(f"{corpus.name}: corpus kept at {out}", file=sys.stderr)
        return out
    subprocess.run([sys.executable, str(ROOT / "bench" / corpus.script), str(out), "--mirrors", str(mirrors)],
                   check=True)
    return out


def index(corpus: Corpus, out: Path, home: Path) -> None:
    args = []
    for spec in corpus.sources:
        agent, sub = spec.split(":", 1)
        args += ["--source", f"{agent}:{(out / sub).resolve()}"]
    home.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "BACKSCROLL_HOME": str(home), "HOME": str(home), "HF_HUB_OFFLINE": "1", "TZ": "UTC"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([str(BIN / "backscroll"), "index", *args], env=env, check=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpora", nargs="*", metavar="CORPUS", help=f"of {', '.join(CORPORA)} (default: all)")
    ap.add_argument("--root", type=Path, default=Path("/tmp/bench"))
    ap.add_argument("--mirrors", type=Path, default=Path(os.environ.get("BACKSCROLL_MIRRORS", "/work/.mirror")))
    args = ap.parse_args()
    if unknown := sorted(set(args.corpora) - set(CORPORA)):
        ap.error(f"no corpus {unknown[0]!r}: the corpora are {', '.join(CORPORA)}")
    chosen = [CORPORA[n] for n in (args.corpora or CORPORA)]
    missing = {c.name: missing_mirrors(c, args.mirrors) for c in chosen}
    if any(missing.values()):
        for name, repos in missing.items():
            for repo in repos:
                print(f"{name}: fetch github:{repo}", file=sys.stderr)
        print(f"fetch the mirrors above into {args.mirrors}, then run this again", file=sys.stderr)
        return 2
    for c in chosen:
        home = args.root / f"{c.name}-home"
        out = build(c, args.root, args.mirrors)
        index(c, out, home)
        print(f"\n{c.name}: {home}")
        for line in c.sets:
            print(f"  HF_HUB_OFFLINE=1 TZ=UTC .venv/bin/python {line.format(home=home, corpus=out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
