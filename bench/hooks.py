#!/usr/bin/env python3
"""Recall-hook precision, latency and size on the evaluation corpus (fixtures/eval/corpus).

    python bench/hooks.py            # precision on both pair sets, bytes injected, cold latency (median of 10)
    python bench/hooks.py --quick    # precision only (what the test runs)
    python bench/hooks.py --home DATA --prompts bench/queries/hooks-agent-corpus-v1.toml
                                     # a frozen prompt set on an indexed history (e.g. bench/agent_corpus.py's)

Related pairs: every query of fixtures/eval/tune.toml whose target is prose (not tool output),
asked as a prompt; a hit is an injection that includes the target's session. The hook recalls by
rare words, so ``word_hit_rate`` leaves out the paraphrase and inference questions, which by
construction share none with their answer (their share of the set must not move the figure). Unrelated pairs:
prompts about work the corpus never did; any injection is a false one. Latency is a cold
``backscroll hook claude prompt`` process, start to exit, on a related prompt.

Each prompt is asked from a working directory, as an agent's hook input always gives one: a prompt about past
work from its session's (of the sessions holding the answer, the working directory most of them ran in), any other
from a session's drawn at random (subagents left out), seeded by the prompt, so that a project with more sessions is
drawn as often as a person works there. A prompt about a session the history does not hold is asked from none.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EVAL = ROOT / "fixtures" / "eval"

UNRELATED = [
    "add a dark mode toggle to the settings screen",
    "why does the iOS build fail to sign with the new provisioning profile",
    "write a haiku generator in rust using the rand crate",
    "migrate the android app from groovy gradle to kotlin dsl",
    "write ansible playbooks to provision the new proxmox hosts",  # (the corpus has done terraform since)
    "the kubernetes ingress returns 502 after upgrading nginx controller",
    "refactor the unity player controller to use the new input system",
    "convert the latex thesis bibliography to biblatex",
    "plot the sensor temperature readings with matplotlib subplots",
    "implement a trie for autocomplete in the typescript frontend",
    "how do I configure vim folding for yaml files",
    "translate the onboarding emails into german and french",
    "the bluetooth pairing drops on the raspberry pi after reboot",
    "add keyboard shortcuts to the electron menu bar",
    "benchmark numpy einsum against a naive loop for tensor contraction",
    "our graphql subscription leaks websocket connections in apollo",
    "fix the css grid layout of the pricing cards on safari",
    "generate openapi client stubs for the go microservice",
    "the arduino servo jitters when the wifi module transmits",
    "tune the jvm garbage collector for the kafka streams app",
]


WORDLESS = ("paraphrase", "inference")  # questions that share no rare word with their answer, by design


def related_pairs() -> list[tuple[str, str, str]]:
    spec = tomllib.loads((EVAL / "tune.toml").read_text())
    return [(q["text"], q["expected"], q["category"]) for q in spec["query"]
            if q.get("content_type") != "tool" and q["category"] not in ("tool-output", "wrong-filter")]


def index(home: Path) -> None:
    import backscroll
    from backscroll.config import resolve

    spec = tomllib.loads((EVAL / "tune.toml").read_text())
    sources = tuple(s.split(":", 1)[0] + ":" + str(EVAL / s.split(":", 1)[1]) for s in spec["corpus"]["sources"])
    backscroll.index(config=resolve(home=home, sources=sources))  # (a hook judges by meaning too)


def asked_from(db: sqlite3.Connection, seed: str, sessions: set[str] | frozenset[str] = frozenset()) -> str | None:
    """The working directory a prompt is asked from: that of one of ``sessions`` (those it is about), else of a
    session drawn at random, seeded by ``seed``."""
    import random

    if sessions:
        mine = [r[0] for s in sorted(sessions) for r in db.execute("SELECT cwd FROM sessions WHERE session_id = ?",
                                                                     (s,)) if r[0]]
        return max(mine, key=mine.count) if mine else None
    cwds = [r[0] for r in db.execute("SELECT cwd FROM sessions WHERE cwd IS NOT NULL AND is_sidechain = 0 "
                                     "ORDER BY session_id") if r[0]]
    return random.Random(seed).choice(cwds) if cwds else None


def precision(home: Path) -> dict:
    from backscroll.config import resolve
    from backscroll.integrations import hooks

    cfg = resolve(home=home)
    db = sqlite3.connect(home / "backscroll.db")

    def ask(prompt: str, n: int, about: set[str] | frozenset[str] = frozenset()) -> tuple[str | None, set[str]]:
        raw = json.dumps({"session_id": f"bench-{RUN}-{n}", "transcript_path": None, "prompt": prompt,
                          "cwd": asked_from(db, prompt, about), "hook_event_name": "UserPromptSubmit"}).encode()
        printed = hooks.run("claude", "prompt", raw, cfg)
        if printed is None:
            return None, set()
        ctx = json.loads(printed)["hookSpecificOutput"]["additionalContext"]
        ids = {line.split("(record ", 1)[1].split(")", 1)[0] for line in ctx.splitlines() if "(record " in line}
        sessions = {r[0] for i in ids for r in db.execute("SELECT session_id FROM records WHERE record_id = ?", (i,))}
        return printed, sessions

    by_cat: dict[str, list[int]] = {}
    sizes: list[int] = []
    n = 0
    for text, expected, cat in related_pairs():
        n += 1
        target = {r[0] for r in db.execute("SELECT session_id FROM records WHERE is_echo = 0 AND instr(text, ?) > 0",
                                           (expected,))}
        out, sessions = ask(text, n, target)
        if out:
            sizes.append(len(json.loads(out)["hookSpecificOutput"]["additionalContext"].encode()))
        by_cat.setdefault(cat, []).append(int(bool(sessions & target)))
    false = 0
    for text in UNRELATED:
        n += 1
        out, _ = ask(text, n)
        false += out is not None
    db.close()
    related = [x for v in by_cat.values() for x in v]
    worded = [x for c, v in by_cat.items() if c not in WORDLESS for x in v]
    return {"related_hit_rate": sum(related) / len(related), "related_n": len(related),
            "word_hit_rate": sum(worded) / len(worded), "word_n": len(worded),
            "by_category": {k: f"{sum(v)}/{len(v)}" for k, v in sorted(by_cat.items())},
            "unrelated_injection_rate": false / len(UNRELATED), "unrelated_n": len(UNRELATED),
            "bytes_injected": {"median": statistics.median(sizes) if sizes else 0, "max": max(sizes, default=0)}}


def injected_sessions(home: Path, prompt: str, n: int, cfg=None, cwd: str | None = None) -> tuple[set[str], int]:
    """The sessions the prompt hook recalls for ``prompt`` (from a new session in ``cwd``), and the bytes it
    injects."""
    from backscroll.config import resolve
    from backscroll.integrations import hooks

    raw = json.dumps({"session_id": f"bench-new-{RUN}-{n}", "transcript_path": None, "prompt": prompt, "cwd": cwd,
                      "hook_event_name": "UserPromptSubmit"}).encode()
    printed = hooks.run("claude", "prompt", raw, cfg or resolve(home=home))
    if printed is None:
        return set(), 0
    answer = json.loads(printed) if isinstance(printed, str) else printed  # releases before 2026-12 gave a dict
    ctx = answer["hookSpecificOutput"]["additionalContext"]
    ids = {line.split("(record ", 1)[1].split(")", 1)[0] for line in ctx.splitlines() if "(record " in line}
    db = sqlite3.connect(home / "backscroll.db")
    try:
        sessions = {r[0] for i in ids for r in db.execute("SELECT session_id FROM records WHERE record_id = ?", (i,))}
    finally:
        db.close()
    return sessions, len(ctx.encode())


def halves(items: list[dict], half: str) -> list[dict]:
    """The half of a prompt file a run looks at, fixed before its first run: odd ids tune, even ids check."""
    if half == "all":
        return items
    odd = half == "tune"
    return [q for q in items if (int(q["id"].split("-")[1]) % 2 == 1) == odd]


RUN = os.urandom(6).hex()  # a new agent session per prompt and run: what one run injected never hides the next's


def prompt_set(home: Path, prompts: Path, half: str = "all") -> dict:
    """Recall and false injections for a frozen prompt file (``[[related]]`` with the session it should
    recall, ``[[unrelated]]`` that should recall nothing), per style, on one half or both, with the ids of the
    prompts that missed their session or injected anything."""
    from backscroll.config import resolve

    spec = tomllib.loads(prompts.read_text())
    spec = {k: halves(spec.get(k, []), half) for k in ("related", "unrelated")}  # (a set may hold one kind only)
    cfg = resolve(home=home)
    related: dict[str, list[int]] = {}
    unrelated: dict[str, list[int]] = {}
    sizes: list[int] = []
    wrong = 0
    missed, injected = [], []  # (the ids, for reading a run afterwards)
    db = sqlite3.connect(home / "backscroll.db")
    where = {q["id"]: asked_from(db, f"{prompts.name}/{q['id']}", {q["session"]} if "session" in q else frozenset())
             for k in ("related", "unrelated") for q in spec[k]}
    db.close()
    for n, q in enumerate(spec["related"]):
        got, size = injected_sessions(home, q["prompt"], n, cfg, where[q["id"]])
        related.setdefault(q["style"], []).append(int(q["session"] in got))
        wrong += bool(got - {q["session"]})
        if q["session"] not in got:
            missed.append(q["id"])
        if size:
            sizes.append(size)
    for n, q in enumerate(spec["unrelated"]):
        got, size = injected_sessions(home, q["prompt"], 10_000 + n, cfg, where[q["id"]])
        unrelated.setdefault(q["style"], []).append(int(bool(got)))
        if got:
            injected.append(q["id"])
    shutil.rmtree(home / "hooks", ignore_errors=True)  # the memory of what this run injected
    flat_r = [x for v in related.values() for x in v]
    flat_u = [x for v in unrelated.values() for x in v]
    return {"related_recalled": round(sum(flat_r) / len(flat_r), 3) if flat_r else None, "related_n": len(flat_r),
            "related_with_another_session": wrong,
            "related_by_style": {k: f"{sum(v)}/{len(v)}" for k, v in sorted(related.items())},
            "unrelated_injected": round(sum(flat_u) / len(flat_u), 3) if flat_u else None, "unrelated_n": len(flat_u),
            "unrelated_by_style": {k: f"{sum(v)}/{len(v)}" for k, v in sorted(unrelated.items())},
            "bytes_injected": {"median": statistics.median(sizes) if sizes else 0, "max": max(sizes, default=0)},
            "related_missed": missed, "unrelated_injecting": injected}


def latency(home: Path, runs: int = 10) -> dict:
    exe = str(Path(sys.executable).with_name("backscroll"))
    env = {**os.environ, "BACKSCROLL_HOME": str(home)}
    text, expected, _ = related_pairs()[0]
    db = sqlite3.connect(home / "backscroll.db")
    about = {r[0] for r in db.execute("SELECT session_id FROM records WHERE instr(text, ?) > 0", (expected,))}
    cwd = asked_from(db, text, about)  # (as a real hook is asked: from a working directory)
    db.close()
    times = []
    for i in range(runs):
        raw = json.dumps({"session_id": f"lat-{i}", "prompt": text, "cwd": cwd}).encode()
        t = time.perf_counter()
        subprocess.run([exe, "hook", "claude", "prompt"], input=raw, capture_output=True, env=env, check=True)
        times.append(1000 * (time.perf_counter() - t))
    return {"median_ms": round(statistics.median(times)), "min_ms": round(min(times)), "max_ms": round(max(times))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="precision only")
    ap.add_argument("--home", type=Path, help="an indexed data dir to measure instead of the eval corpus")
    ap.add_argument("--prompts", type=Path, help="with --home: a frozen prompt file ([[related]], [[unrelated]])")
    ap.add_argument("--half", choices=("tune", "check", "all"), default="all",
                    help="odd prompt ids (tune: what rules are tried on) or even ones (check: measured after)")
    args = ap.parse_args()
    if args.home is not None:
        print(json.dumps(prompt_set(args.home, args.prompts, args.half), indent=2))
        return
    with tempfile.TemporaryDirectory(prefix="backscroll-hooks-") as tmp:
        home = Path(tmp)
        index(home)
        out = precision(home)
        if not args.quick:
            out["cold_latency"] = latency(home)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
