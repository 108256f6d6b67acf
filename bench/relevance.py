#!/usr/bin/env python3
"""Judging relevance: dump the evidence of frozen query sets, fit the judgement, report what it keeps.

    python bench/relevance.py dump OUT.jsonl --set NAME=HOME=QUERIES.toml[@odd|@even][#TARGET] [...]
                                             [--hook-set NAME=HOME=QUERIES.toml...] [--modes hybrid]
    python bench/relevance.py fit TRAIN.jsonl [...] [--out backscroll/retrieval/relevance.json]
    python bench/relevance.py fit TRAIN.jsonl [...] --use hook [--features F,F] [--into FITS.json]
    python bench/relevance.py report DUMP.jsonl [...] [--model FILE] [--point search|hook]
    python bench/relevance.py cross DUMP.jsonl [...] --corpus NAME=SET,SET [--corpus ...]

``dump`` runs each query of a set against an indexed home (``bench/agent_search.py --home``, or a home indexed
with ``backscroll index --source ...``) with weak matches kept, and writes one JSON line per query: its set, the
use it was asked for, id, category, whether it was never discussed, the judgement's evidence
(``relevance.FEATURES``) and its hits (which answer it: of the target session, or for a query naming a record,
the record holding ``expected``; their strength). ``@odd``/``@even`` keep one half of a file (by the digits of
the ids); ``#TARGET`` keeps only the queries of a crossed never-discussed file (``bench/crossed_never.py``)
asked of that home (``#TARGET~SOURCE``: only those drawn from that source). A recall hook's prompt file
(``[[related]]``, ``[[unrelated]]``), and a ``--hook-set``'s questions, are asked as the hook asks a prompt.

``fit`` fits, for each use and mode, a logistic model of "the question has an answer here" on the sets asked that way: a
question with an answer in its top ``K`` is 1, a never-discussed one (or an unrelated prompt) 0, others are left
out; each set weighs alike within each class. Its operating point is the lowest probability that
keeps ``NEVER_EMPTY`` of each set's never-discussed questions empty (a search's) or ``HOOK_SILENT`` of each
set's unrelated prompts silent (a recall hook's). A hook has its own fit because what it must stay silent for
differs: an everyday request ("add a changelog entry") is no answerless question to a search, and the words
it holds are no evidence of past work. ``--use`` fits one use alone (on the ``--features`` named, the others
weighing 0) into a file of fits whose other uses are kept: a candidate for one use, beside the shipped rest.

``report`` prints, per set, what a user feels: never-discussed questions that came back empty, right answers
(in the top 5 before any judgement) kept in the results, and hit@1 by category; without ``--model``, as if
every question were answered (no judgement).

``cross`` asks whether a fit transfers (a rule that pays on one corpus only does not): it fits on each
corpus's sets alone and measures on each other corpus's, beside the fit on them all.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tomllib
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

NEVER_EMPTY = 0.97  # the share of never-discussed training questions a search's operating point keeps empty
HOOK_SILENT = 0.98  # the share of unrelated training prompts a recall hook's operating point keeps silent
K = 5
HOOK = {"content_type": "text", "strict": True}  # how a recall hook searches (``integrations/recall.py``)


def _half(qid: str, half: str) -> bool:
    n = int("".join(c for c in qid if c.isdigit()) or 0)
    return (n % 2 == 1) == (half == "odd")


@contextmanager
def hook_depth(hook: bool):
    """A search whose lists are read as deep as a recall hook reads them (``lists.HOOK_DEPTH``)."""
    from backscroll.retrieval import lists

    was = lists.DEPTH
    lists.DEPTH = lists.HOOK_DEPTH if hook else was
    try:
        yield
    finally:
        lists.DEPTH = was


def load_set(spec: str, hook: bool = False) -> tuple[str, Path, list[dict], str]:
    """A set's name, home, queries and use ("hook" for a prompt file, or with ``hook``: its questions asked as a
    recall hook asks a prompt, prose only and strict, those whose answer is a tool output left out)."""
    name, home, rest = spec.split("=", 2)
    path, _, target = rest.partition("#")
    path, _, half = path.partition("@")
    data = tomllib.loads(Path(path).read_text())
    questions = data.get("query", [])
    if hook:
        questions = [{**q, **HOOK} for q in questions
                     if q.get("content_type") != "tool" and q.get("category") not in ("tool-output", "wrong-filter")]
    use = "hook" if hook or "related" in data or "unrelated" in data else "search"
    asked = questions + [  # a recall hook's prompt file: prompts about past work, and unrelated ones
        {"id": p["id"], "text": p["prompt"].strip(), "session": p["session"], "category": p.get("style"), **HOOK}
        for p in data.get("related", [])] + [
        {"id": p["id"], "text": p["prompt"].strip(), "nothing": True, "category": p.get("style"), **HOOK}
        for p in data.get("unrelated", [])]
    queries = [{**q, "id": q.get("id") or f"q{n}", "now": q.get("now", data.get("now"))}
               for n, q in enumerate(asked, start=1)]
    if half:
        queries = [q for q in queries if _half(q["id"], half)]
    if target:  # "c3", or "c3~evalcheck": the questions asked of c3, or only those drawn from evalcheck
        queries = [q for q in queries if f"{q['id']}~".startswith(f"{target}~")]
    return name, Path(home), queries, use


def answers(hit, q: dict) -> bool:
    if q.get("nothing"):
        return False
    if q.get("session"):  # a question about a session (the agent benchmarks): any of its records answers
        return hit.session_id == q["session"]
    return bool(q.get("expected")) and q["expected"] in hit.text


def dump(args) -> int:
    from backscroll.archive import Backscroll
    from backscroll.integrations.recall import CANDIDATES, MAX_PROMPT
    from backscroll.retrieval.relevance import FEATURES

    with args.out.open("w") as out:
        for spec, hook in [(s, False) for s in args.set] + [(s, True) for s in args.hook_set]:
            name, home, queries, use = load_set(spec, hook)
            with Backscroll(home=home) as bs:
                for mode in args.modes.split(","):
                    for q in queries:
                        opts = {k: q[k] for k in ("role", "author", "agent", "content_type", "project", "since",
                                                  "until", "include_echoes", "strict") if k in q}
                        hook = use == "hook"  # (asked as the hook asks: its prompt cut, its 20 candidates)
                        with hook_depth(hook):  # (the lists read as deep as the hook reads them)
                            every = bs.search(q["text"][:MAX_PROMPT] if hook else q["text"], mode=mode,
                                              limit=CANDIDATES if hook else 10, max_chars=0, rerun=True,
                                              now=q["now"], weak=True, **opts)
                        hits = [{"rank": h.rank, "right": answers(h, q), "strength": h.strength,
                                 "session": h.session_id, "lists": list(h.matched_by), "match": h.match}
                                for h in every.results[:10]]
                        out.write(json.dumps({"set": name, "use": use, "mode": mode, "id": q["id"],
                                              "category": q.get("category"), "nothing": bool(q.get("nothing")),
                                              "features": list(FEATURES), "evidence": list(every.evidence),
                                              "hits": hits}) + "\n")
                        out.flush()
            print(f"{name}: {len(queries)} queries", file=sys.stderr)
    return 0


def read(paths: list[Path], judged: bool = False) -> list[dict]:
    """The dumps' queries; ``judged``: only those the judgement judges (a question about a date alone is
    answered by its date, and one of question words only has nothing to judge: neither has evidence)."""
    rows = [json.loads(line) for p in paths for line in p.read_text().splitlines() if line.strip()]
    return [r for r in rows if not judged or r["evidence"]]


def label(r: dict) -> float | None:
    """1: the question has an answer in its top ``K``; 0: it was never discussed; None: neither (left out)."""
    if r["nothing"]:
        return 0.0
    return 1.0 if any(h["right"] for h in r["hits"][:K]) else None


MODES = ("hybrid", "lexical", "semantic")
USES = {"search": NEVER_EMPTY, "hook": HOOK_SILENT}  # each use's fit, and the share of its answerless set kept empty


def fit(args) -> int:
    judged = read(args.dumps, judged=True)
    if args.use:  # one use's fits on some of the features, into the fits already written
        model = load_model(args.into)
        if model["features"] != judged[0]["features"]:
            raise SystemExit(f"{args.into} was fitted on other features: fit every use")
        only = [model["features"].index(f) for f in args.features.split(",")] if args.features else None
        new = fitted([r for r in judged if use(r) == args.use], args.l2, only)
        model[args.use] = {**model.get(args.use, {}), **new.get(args.use, {})}
        args.into.write_text(json.dumps(model, indent=1) + "\n")
        print(json.dumps(new, indent=1))
        return 0
    model = fitted(judged, args.l2)
    text = json.dumps(model, indent=1) + "\n"
    if args.out:
        missing = [f"{u} {m}" for u in USES for m in MODES if m not in model.get(u, {})]
        if missing:  # (a search may ask in every mode, and so may a hook, once it falls back)
            raise SystemExit(f"not written: no fit for {', '.join(missing)} (dump --modes {','.join(MODES)}, "
                             "and some sets asked as a hook asks)")
        args.out.write_text(text)
    print(text)
    return 0


def use(r: dict) -> str:
    if "use" not in r:
        raise SystemExit(f"{r['set']}: a dump written before each set was marked with its use: dump it again")
    return r["use"]


def fitted(judged: list[dict], l2: float, only: list[int] | None = None) -> dict:
    """The judgement for each use and mode, fitted on the sets asked that way: a search's on questions, a recall
    hook's on prompts (a request that names no past work is no answerless question to a search, only to a hook);
    each mode has evidence of its own (no meaning in lexical mode, no words ranking in semantic)."""
    if not judged:
        raise SystemExit("nothing to fit: the dumps hold no judged question")
    model: dict = {"features": judged[0]["features"]}
    for name, empty in USES.items():
        rows = [r for r in judged if use(r) == name]
        modes = sorted({r["mode"] for r in rows})
        if rows:
            model[name] = {mode: fitted_one([r for r in rows if r["mode"] == mode], empty, l2, only)
                           for mode in modes}
    return model


def fitted_one(judged: list[dict], empty: float, l2: float, only: list[int] | None = None) -> dict:
    """A logistic model of "the question has an answer here" from the question's evidence, each training set
    weighing alike within each class and the two classes alike in all; its operating point is the lowest that
    keeps ``empty`` of each set's answerless questions empty."""
    import numpy as np

    rows = [r for r in judged if label(r) is not None]
    labels = [label(r) or 0.0 for r in rows]
    groups: defaultdict[tuple[str, float], int] = defaultdict(int)
    for r, y_ in zip(rows, labels, strict=True):
        groups[(r["set"], y_)] += 1
    classes = {y_: sum(1 for (_s, yy) in groups if yy == y_) for y_ in (0.0, 1.0)}
    x = np.array([r["evidence"] for r in rows], dtype=float)
    if only is not None:  # (the other features weigh nothing)
        x = x[:, only]
    y = np.array(labels)
    w = np.array([1.0 / groups[(r["set"], y_)] / classes[y_] for r, y_ in zip(rows, labels, strict=True)])
    weights, bias = _logistic(x, y, w, l2=l2)
    if only is not None:
        weights = [dict(zip(only, weights, strict=True)).get(n, 0.0) for n in range(len(rows[0]["evidence"]))]
    model: dict = {"weights": [round(v, 4) for v in weights], "bias": round(bias, 4)}
    model["point"] = math.ceil(operating_point(rows, model, empty) * 1e4) / 1e4  # (up: above those it keeps out)
    return model


def load_model(path: Path) -> dict:
    """A fitted judgement; one of before each use and mode had its own fit reads as the same fit for each."""
    data = json.loads(path.read_text())
    if "weights" in data:
        one = {"weights": data["weights"], "bias": data["bias"]}
        return {"features": data["features"],
                **{u: {mode: {**one, "point": point} for mode, point in data["points"][u].items()} for u in USES}}
    return data


def _logistic(x, y, w, l2: float = 1.0, steps: int = 3000, rate: float = 0.5):
    """Weighted, L2-regularised logistic regression by gradient descent on standardised features."""
    import numpy as np

    mean, std = x.mean(axis=0), x.std(axis=0) + 1e-9
    z = (x - mean) / std
    beta, b0 = np.zeros(z.shape[1]), 0.0
    total = w.sum()
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(z @ beta + b0)))
        g = (w * (p - y)) @ z / total + l2 * beta / total
        g0 = (w * (p - y)).sum() / total
        beta -= rate * g
        b0 -= rate * g0
    weights = beta / std
    return weights.tolist(), float(b0 - (beta * mean / std).sum())


def probability(features: list[float], model: dict) -> float:
    z = model["bias"] + sum(a * b for a, b in zip(model["weights"], features, strict=True))
    return 1 / (1 + math.exp(-z))


def operating_point(rows: list[dict], model: dict, never_empty: float) -> float:
    """The lowest threshold that keeps ``never_empty`` of the never-discussed questions empty, in each set and
    mode."""
    by_set = defaultdict(list)
    for r in rows:
        if r["nothing"]:
            by_set[(r["set"], r["mode"])].append(probability(r["evidence"], model))
    if not by_set:
        return 0.5
    points = []
    for found in by_set.values():
        found.sort()
        points.append(found[min(len(found) - 1, math.ceil(never_empty * len(found)) - 1)] + 1e-6)
    return max(points)


def shown(r: dict, model: dict | None, point: str | None = None) -> list[dict]:
    """The hits a search shows (or a hook injects: ``point``, else the use the set was asked for): the first
    and those above the line when the question is judged answered."""
    from backscroll.retrieval.judgement import LINE_HELD

    if not r["evidence"]:  # (a date question: its date answers it)
        return r["hits"]
    judge = model[point or use(r)][r["mode"]] if model is not None else None
    if judge is not None and probability(r["evidence"], judge) < judge["point"]:
        return []
    return [h for n, h in enumerate(r["hits"]) if n == 0 or h["strength"] is None or h["strength"] >= LINE_HELD]


def report(args) -> int:
    model = load_model(args.model) if args.model else None
    by_set: dict[tuple[str, str, str], list[dict]] = defaultdict(list)
    for path in args.dumps:
        for r in read([path]):
            by_set[(f"{path.stem}:{r['set']}", use(r), r["mode"])].append(r)
    for (name, asked, mode), items in sorted(by_set.items()):
        print(f"{name} ({asked}) {mode}: {json.dumps(measure(items, model, args.point))}")
    return 0


def measure(items: list[dict], model: dict | None, point: str | None = None) -> dict:
    """What a user of one set and mode feels: never-discussed questions left empty, right answers kept, hit@1."""
    never = [r for r in items if r["nothing"]]
    answerable = [r for r in items if not r["nothing"]]
    empty = sum(1 for r in never if not shown(r, model, point))
    reachable = [r for r in answerable if any(h["right"] for h in r["hits"][:K])]
    kept = sum(1 for r in reachable if any(h["right"] for h in shown(r, model, point)[:K]))
    cats: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in answerable:
        first = shown(r, model, point)[:1]
        cats[r["category"]][0] += bool(first and first[0]["right"])
        cats[r["category"]][1] += 1
    return {"never_empty": f"{empty}/{len(never)}" + (f" = {empty / len(never):.0%}" if never else ""),
            "right_kept": f"{kept}/{len(reachable)}" + (f" = {kept / len(reachable):.1%}" if reachable else ""),
            "hit1": {c: round(a / n, 3) for c, (a, n) in sorted(cats.items())}}


def cross(args) -> int:
    """Whether the judgement transfers: fitted on each corpus's sets alone, measured on every other corpus's,
    beside the model fitted on them all (a feature or constant that pays on one corpus only shows here)."""
    judged = read(args.dumps, judged=True)
    corpora = {name: set(sets.split(",")) for name, _, sets in (c.partition("=") for c in args.corpus)}
    known = {r["set"] for r in judged}
    if "all" in corpora or any(not sets & known for sets in corpora.values()):
        raise SystemExit("each --corpus needs a name other than 'all' and sets the dumps hold")
    for name in sorted(set().union(*corpora.values()) - known):
        print(f"(no set {name} in the dumps)", file=sys.stderr)
    every = set().union(*corpora.values())
    models = {"all": fitted([r for r in judged if r["set"] in every], args.l2)}
    models |= {name: fitted([r for r in judged if r["set"] in sets], args.l2) for name, sets in corpora.items()}
    rows = read(args.dumps)
    for target, sets in corpora.items():
        for source in ("all", *(n for n in corpora if n != target)):
            for (name, asked, mode) in sorted({(r["set"], use(r), r["mode"]) for r in rows if r["set"] in sets}):
                if mode not in models[source].get(asked, {}):
                    continue  # (that corpus had no set asked this way, in this mode, to fit on)
                items = [r for r in rows if r["set"] == name and use(r) == asked and r["mode"] == mode]
                print(f"fitted on {source} -> {target}:{name} {mode} ({asked}): "
                      f"{json.dumps(measure(items, models[source]))}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="verb", required=True)
    d = sub.add_parser("dump")
    d.add_argument("out", type=Path)
    d.add_argument("--set", action="append", default=[])
    d.add_argument("--hook-set", action="append", default=[], help="a query set asked as a recall hook asks")
    d.add_argument("--modes", default="hybrid")
    f = sub.add_parser("fit")
    f.add_argument("dumps", type=Path, nargs="+")
    f.add_argument("--out", type=Path)
    f.add_argument("--l2", type=float, default=0.01)
    f.add_argument("--use", choices=tuple(USES), help="fit this use only, into --into's fits (the others kept)")
    f.add_argument("--features", help="with --use: the features it reads, comma-separated (the others weigh 0)")
    f.add_argument("--into", type=Path, default=Path("backscroll/retrieval/relevance.json"))
    c = sub.add_parser("cross", help="fit on each corpus alone, measure on the others")
    c.add_argument("dumps", type=Path, nargs="+")
    c.add_argument("--corpus", action="append", required=True, help="NAME=SET,SET...: the sets of one corpus")
    c.add_argument("--l2", type=float, default=0.01)
    r = sub.add_parser("report")
    r.add_argument("dumps", type=Path, nargs="+")
    r.add_argument("--model", type=Path, help="without: every question counts as answered (no judgement)")
    r.add_argument("--point", choices=("search", "hook"), help="judge every set as this use (default: as asked)")
    args = ap.parse_args()
    return {"dump": dump, "fit": fit, "cross": cross, "report": report}[args.verb](args)


if __name__ == "__main__":
    raise SystemExit(main())
