#!/usr/bin/env python3
"""A waiting hook candidate judged by its written rule: main and main + the patch, in turn, on the frozen sets.

    python bench/candidates/validate_hook.py --agent-home /tmp/bench/agent-home --c3-home /tmp/bench/c3-home \\
        --aider-home /tmp/bench/aider-home --patch bench/candidates/NAME.patch [--patch OTHER.patch] [--out DIR]

The homes are ``bench/homes.py``'s. Every code tree is a worktree of HEAD made under ``--out`` (a candidate's with
its patch applied), each run with ``PYTHONPATH`` on its tree from a folder outside the checkout, and each on its own
copy of every home (what a tree's hook keeps in a home never reaches another's). Set by set, main runs first and
each candidate next, in the order given (main's figures depend on HEAD alone: run once, each candidate is judged
against them), through the hook's own entry (``bench/hooks.py``'s prompt sets and its 20 unrelated pairs of the eval
corpus), and the default searches of the identity check are written by each and compared byte for byte. Printed:
each set's figures, and each line of the rule held or not, for each candidate. The rule here (``SETS`` and
``judge``) is the one written on 2026-12-08 for the own-meaning candidate (``docs/ranking.md``, "A prompt recalls
what its own project holds close by meaning: a waiting candidate"); a new candidate writes its own rule in
docs/ranking.md before its first run and puts its sets and lines here. ``hooks-terse-v1`` is training data since
2026-12-06, and ``hooks-c3-v2`` was written after the rule: their figures are printed, not judged.
Each prompt is asked from a working directory (``bench/hooks.py``: past work from its session's).
The hook's whole-process wall is timed apart, old and new paired in turn; the commands are printed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
QUERIES = ROOT / "bench" / "queries"
# (set, home) in the order they run, as the 2026-12-06 rule named them; the terse sets hold everyday requests only
SETS = [("hooks-everyday-v1", "agent"), ("hooks-everyday-v2", "agent"), ("hooks-everyday-v3", "agent"),
        ("hooks-c3-v1", "c3"), ("hooks-aider-v1", "aider"), ("hooks-terse-v2", "aider"), ("hooks-terse-v2", "agent"),
        ("hooks-everyday-v4", "aider"), ("hooks-everyday-v4", "agent"), ("hooks-everyday-v4", "c3"),
        ("hooks-terse-v1", "aider"), ("hooks-terse-v1", "agent"), ("hooks-aider-v2", "aider"), ("hooks-c3-v2", "c3")]
TRAINING = ("hooks-terse-v1",)  # printed, not judged
REPORTED = ("hooks-c3-v2",)  # written after the rule (2026-12-08): its first run is printed, not judged

IDENTITY = r'''
import json, sys, tomllib
import backscroll
from backscroll import Backscroll
home, out, root = sys.argv[1], sys.argv[2], sys.argv[3]
crossed = [q for q in tomllib.load(open(f"{root}/bench/queries/crossed-train-v1.toml", "rb"))["query"]
           if q.get("target", "agent") == "agent"]
odd = [q for q in tomllib.load(open(f"{root}/bench/queries/agent-search-v1.toml", "rb"))["query"]
       if int("".join(c for c in q["id"] if c.isdigit())) % 2 == 1]
rows = []
with Backscroll(home=home) as bs:
    for q in crossed + odd:
        for limit in (5, 10):
            r = bs.search(q["text"], limit=limit, rerun=True, now=q.get("now") or "2026-12-05T00:00:00Z")
            rows.append({"q": q["text"], "n": limit, "results": [h.record_id for h in r.results],
                         "weak": [h.record_id for h in r.weak_matches], "strength": [h.strength for h in r.results],
                         "notes": list(r.notes), "has_more": r.has_more, "evidence": list(r.evidence)})
json.dump({"code": backscroll.__file__, "rows": rows}, open(out, "w"))
'''


def tree(out: Path, name: str, patch: Path | None) -> Path:
    """A worktree of HEAD at ``out/name``, with ``patch`` applied; made again when one is there (a run cut short, a
    patch that did not apply), so that what is judged is always HEAD and HEAD + the patch."""
    path = out / name
    if path.exists():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)], capture_output=True)
        shutil.rmtree(path, ignore_errors=True)
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), "HEAD"], check=True,
                   capture_output=True)
    if patch is not None:
        done = subprocess.run(["git", "-C", str(path), "apply", str(patch.resolve())], capture_output=True, text=True)
        if done.returncode != 0:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)], capture_output=True)
            raise SystemExit(f"{patch} does not apply to HEAD:\n{done.stderr}")
    return path


def home_copy(out: Path, tree_name: str, name: str, source: Path, code: Path) -> Path:
    """A copy of ``source`` for ``tree_name`` alone, at ``code``'s schema: a hook never upgrades a store itself (it
    hands that to a process of its own and recalls nothing meanwhile), so an older home would fail every prompt."""
    path = out / "homes" / tree_name / name
    if not path.exists():
        shutil.copytree(source, path, symlinks=True)
        run(code, out, ["-c", "import sys; from backscroll.store.db import Store; Store.open(sys.argv[1]).close()",
                        str(path / "backscroll.db")])
    return path


def run(code: Path, out: Path, args: list[str]) -> str:
    """A bench script of ``code``'s tree, run with that tree's package, from outside any checkout."""
    env = {**os.environ, "PYTHONPATH": str(code), "HF_HUB_OFFLINE": "1", "TZ": "UTC", "BACKSCROLL_BACKGROUND": "0"}
    done = subprocess.run([sys.executable, *args], cwd=out, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed in {code}:\n{done.stderr[-2000:]}")
    return done.stdout


def counts(result: dict) -> dict:
    """Injecting everyday requests and recalled past-work prompts, as counts."""
    injected = round((result["unrelated_injected"] or 0) * result["unrelated_n"])
    recalled = round((result["related_recalled"] or 0) * result["related_n"])
    return {"everyday_injecting": injected, "everyday_n": result["unrelated_n"], "recalled": recalled,
            "related_n": result["related_n"], "by_style": result["related_by_style"]}


def judge(figures: dict, eval_pairs: dict, same: int, total: int) -> list[tuple[str, bool]]:
    """Each line of the rule, held or not."""
    lines = []
    judged = {k: v for k, v in figures.items() if not k.startswith(TRAINING + REPORTED)}
    for key, (old, new) in judged.items():
        n = new["everyday_n"]
        old_silent, new_silent = (1 - side["everyday_injecting"] / n if n else 1.0 for side in (old, new))
        lines.append((f"{key}: everyday injecting {new['everyday_injecting']} vs main {old['everyday_injecting']} "
                      f"(at most one more; silent {new_silent:.2%}, at least 98% where main is: {old_silent:.2%})",
                      new["everyday_injecting"] <= old["everyday_injecting"] + 1
                      and (new_silent >= 0.98 or old_silent < 0.98)))
        if key.startswith(("hooks-terse-v2", "hooks-everyday-v4")):  # (silence only)
            continue
        lines.append((f"{key}: recalled {new['recalled']} vs main {old['recalled']} (not fewer by more than one)",
                      new["recalled"] >= old["recalled"] - 1))
    old_total = sum(o["recalled"] for o, _ in judged.values())
    new_total = sum(n["recalled"] for _, n in judged.values())
    lines.append((f"past work recalled in total: {new_total} vs main {old_total} (more)", new_total > old_total))
    injected = round(eval_pairs["cand"]["unrelated_injection_rate"] * eval_pairs["cand"]["unrelated_n"])
    lines.append((f"eval corpus's unrelated pairs injecting: {injected} of {eval_pairs['cand']['unrelated_n']} "
                  "(none)", injected == 0))
    lines.append((f"identity searches unchanged: {same} of {total}", same == total))
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agent-home", type=Path, required=True)
    ap.add_argument("--c3-home", type=Path, required=True)
    ap.add_argument("--aider-home", type=Path, required=True)
    ap.add_argument("--patch", type=Path, required=True, action="append",
                    help="a candidate, a patch waiting in bench/candidates (again for another: each is judged alone)")
    ap.add_argument("--out", type=Path, default=Path("/tmp/validate-hook"))
    ap.add_argument("--trial", type=Path, help="a trial of this script: this prompt file in place of every set, "
                    "with neither the eval pairs nor the identity searches (no line of the rule is judged)")
    args = ap.parse_args()
    homes = {"agent": args.agent_home, "c3": args.c3_home, "aider": args.aider_home}
    for name, path in homes.items():
        if not (path / "backscroll.db").exists():
            raise SystemExit(f"--{name}-home {path}: no backscroll.db (bench/homes.py builds it)")
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()
    args.out = args.out / head  # (what a run of another HEAD wrote is not taken for this)
    args.out.mkdir(parents=True, exist_ok=True)
    # each side by name: main, and each patch by its content's hash (what a run of another patch wrote is not taken)
    sides = {"main": None} | {f"cand-{hashlib.blake2b(p.read_bytes(), digest_size=4).hexdigest()}": p
                              for p in args.patch}
    trees = {side: tree(args.out, side, patch) for side, patch in sides.items()}
    results = args.out / ("trial" if args.trial else "results")  # (kept: a run cut short goes on from there)
    results.mkdir(exist_ok=True)

    figures: dict[str, dict[str, dict]] = {}
    for name, home in SETS:
        figures[f"{name} ({home})"] = by_side = {}
        for side, code in trees.items():
            saved = results / f"{name}.{home}.{side}.json"
            if not saved.exists():
                h = home_copy(args.out, side, home, homes[home], code)
                prompts = args.trial or QUERIES / f"{name}.toml"
                saved.write_text(run(code, args.out, [str(code / "bench" / "hooks.py"), "--home", str(h),
                                                      "--prompts", str(prompts)]))
            by_side[side] = counts(json.loads(saved.read_text()))
            print(f"{name} on {home}, {side}: {by_side[side]}", flush=True)
    removal = "; ".join(f"git worktree remove --force {path}" for path in trees.values())
    if args.trial:
        print(f"afterwards: {removal}")
        return 0

    eval_pairs = {}
    for side, code in trees.items():
        saved = results / f"eval-pairs.{side}.json"
        if not saved.exists():
            saved.write_text(run(code, args.out, [str(code / "bench" / "hooks.py"), "--quick"]))
        eval_pairs[side] = json.loads(saved.read_text())
        print(f"eval corpus pairs, {side}: {eval_pairs[side]}", flush=True)

    script = args.out / "identity.py"
    script.write_text(IDENTITY)
    rows = {}
    for side, code in trees.items():
        saved = results / f"identity.{side}.json"
        if not saved.exists():
            h = home_copy(args.out, side, "agent", homes["agent"], code)
            run(code, args.out, [str(script), str(h), str(saved), str(code)])
        got = json.loads(saved.read_text())
        if not got["code"].startswith(str(code)):
            raise SystemExit(f"the {side} searches ran {got['code']}, not {code}'s package")
        rows[side] = got["rows"]

    every = True
    for side, patch in sides.items():
        if patch is None:
            continue
        pairs = list(zip(rows["main"], rows[side], strict=True))
        same = sum(a == b for a, b in pairs)
        seen_same = sum({**a, "evidence": None} == {**b, "evidence": None} for a, b in pairs)
        print(f"\n{patch} ({side}) against main\nidentity: {same} of {len(rows['main'])} the same; "
              f"{seen_same - same} more differ in their evidence vector alone (results, strengths and notes the same)")
        lines = judge({k: (v["main"], v[side]) for k, v in figures.items()},
                      {"main": eval_pairs["main"], "cand": eval_pairs[side]}, same, len(rows["main"]))
        for text, held in lines:
            print(f"{'held  ' if held else 'FAILED'}  {text}")
        held_all = all(h for _, h in lines)
        every = every and held_all
        print(f"{patch}: " + ("every line held" if held_all else "not every line held: the patch goes"))
    print("\nthe hook's whole-process wall, paired in turn (the rule: median at most 1.25 times main's; PROMPT.json "
          "names something and gives a cwd, as a real hook's input does; compile each tree first, for a shell that "
          "sets PYTHONDONTWRITEBYTECODE compiles every module on every run: "
          + " ".join(f"{sys.executable} -m compileall -q {code}/backscroll;" for code in trees.values()) + ")")
    for side, code in trees.items():
        print(f"  {side}: PYTHONPATH={code} BACKSCROLL_HOME={args.out / 'homes' / side / 'agent'} "
              f"{sys.executable} -m backscroll hook claude prompt < PROMPT.json")
    print(f"afterwards: {removal}")
    return 0 if every else 1


if __name__ == "__main__":
    sys.exit(main())
